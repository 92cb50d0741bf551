package com.example.coreonly;

import dev.ballast.health.Backend;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Policy;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Subsetter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The README's tour as an application writes it: a subset, a balancer over it, picks and outcomes. */
public final class Picks {
  private Picks() {}

  /**
   * Client {@code client} of {@code clients} takes a subset of {@code subsetSize} of {@code
   * backends}, picks {@code requests} times with weighted round robin and reports each a success.
   *
   * @return how many requests each backend of the subset served, by key
   */
  public static Map<String, Integer> run(List<String> backends, int client, int clients, int subsetSize, int requests) {
    List<String> mine = Subsetter.orthogonalLots()
        .subset(BackendSet.of(backends), ClientIdentity.of(client, clients), subsetSize);
    Balancer balancer = Balancer.create(Policy.weightedRoundRobin());
    balancer.updateSubset(mine);
    for (String key : mine) {
      balancer.backend(key).onConnected();
    }
    Map<String, Integer> served = new TreeMap<>();
    for (int i = 0; i < requests; i++) {
      Pick pick = balancer.pick();
      if (!pick.isPicked()) {
        throw new IllegalStateException("request " + i + ": no backend picked (" + pick.status() + ")");
      }
      Backend backend = pick.backend();
      served.merge(backend.key(), 1, Integer::sum);
      pick.onSuccess(1_000_000);
    }
    return served;
  }

  /**
   * Prints what {@link #run} served for client 0 of 10 over 20 backends.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    List<String> backends = java.util.stream.IntStream.range(0, 20).mapToObj(i -> "task-" + i).toList();
    System.out.println(run(backends, 0, 10, 5, 1_000));
  }
}
