package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.time.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/** Balancers over connected backends named {@code prefix0..prefix(n-1)}. */
final class TestBalancers {
  private TestBalancers() {}

  /** A generator whose every draw is {@code value}: round-robin policies then start at {@code value mod n}. */
  static RandomGenerator fixed(long value) {
    return () -> value;
  }

  static List<String> keys(String prefix, int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(prefix + i);
    }
    return keys;
  }

  static Balancer connected(
      Policy policy, HealthConfig health, NanoClock clock, RandomGenerator random, List<String> keys) {
    Balancer balancer = Balancer.builder(policy).health(health).clock(clock).reproducibleFrom(random).build();
    balancer.updateSubset(keys);
    for (String key : keys) {
      balancer.backend(key).onConnected();
    }
    return balancer;
  }

  /** Picks {@code count} times, ending each request at once, and returns the keys picked. */
  static List<String> pickAndRelease(Balancer balancer, int count) {
    List<String> picked = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Pick pick = balancer.pick();
      picked.add(pick.isPicked() ? pick.backend().key() : pick.status().name());
      pick.onSuccess(1_000_000);
    }
    return picked;
  }

  /** A custom policy's pick of the first backend of {@code snapshot} that takes the request. */
  static Pick firstAvailable(CustomPolicy.Snapshot<?> snapshot) {
    for (int i = 0; i < snapshot.size(); i++) {
      Pick pick = snapshot.acquire(i);
      if (pick != null) {
        return pick;
      }
    }
    return snapshot.failed();
  }

  static int[] activeCounts(Balancer balancer) {
    List<Backend> backends = balancer.health().backends();
    int[] counts = new int[backends.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = backends.get(i).activeRequests();
    }
    return counts;
  }
}
