package dev.ballast.grpc.xds;

import dev.ballast.grpc.BallastClients;
import dev.ballast.health.Backend;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The {@code ballast} balancers of one target as they open and close, and each one's subsets as
 * they change, seen through {@link BallastClients}: what the channel runs after each push. The
 * channel's builder must go through {@link #track}.
 */
final class BalancerWatch implements AutoCloseable {
  private final String target;
  private final BallastClients clients = BallastClients.create();
  private final List<BallastClients.Client> opened = new ArrayList<>();
  private final List<List<String>> subsets = new ArrayList<>();
  private final Runnable stopObserving;

  BalancerWatch(String target) {
    this.target = target;
    this.stopObserving =
        clients.observe(
            new BallastClients.Observer() {
              @Override
              public void opened(BallastClients.Client client) {
                if (!client.target().equals(target)) {
                  return;
                }
                synchronized (BalancerWatch.this) {
                  opened.add(client);
                }
                Consumer<List<Backend>> listener = subset -> subsetChanged(client, subset);
                client.balancer().addSubsetListener(listener);
                Await.signal();
              }

              @Override
              public void closed(BallastClients.Client client) {
                Await.signal();
              }
            });
  }

  private void subsetChanged(BallastClients.Client client, List<Backend> subset) {
    List<String> keys = new ArrayList<>();
    for (Backend backend : subset) {
      keys.add(backend.key());
    }
    synchronized (this) {
      if (client != current()) {
        return;
      }
      subsets.add(List.copyOf(keys));
    }
    Await.signal();
  }

  /** Makes the channels {@code builder} builds report to this watch. */
  <T extends io.grpc.ManagedChannelBuilder<?>> T track(T builder) {
    return clients.track(builder);
  }

  /** The latest balancer opened for the target, or null. */
  synchronized BallastClients.Client current() {
    return opened.isEmpty() ? null : opened.get(opened.size() - 1);
  }

  /** How many balancers have opened for the target so far. */
  synchronized int balancersOpened() {
    return opened.size();
  }

  /** The current balancer's latest subset (backend keys, {@code 127.0.0.1:PORT}), or empty. */
  synchronized List<String> subset() {
    return subsets.isEmpty() ? List.of() : subsets.get(subsets.size() - 1);
  }

  /** Every subset the balancers have had, oldest first. */
  synchronized List<List<String>> subsets() {
    return List.copyOf(subsets);
  }

  /** Waits for a balancer whose policy is {@code policy} and whose subset has {@code size} backends. */
  BallastClients.Client awaitBalancer(String policy, int size) throws InterruptedException {
    Await.until(
        "a " + policy + " balancer for " + target + " with a subset of " + size,
        () -> {
          BallastClients.Client client = current();
          return client != null && client.balancer().policy().name().equals(policy) && subset().size() == size;
        });
    return current();
  }

  @Override
  public void close() {
    stopObserving.run();
  }
}
