package dev.ballast.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.pick.CustomPolicy;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.pick.Policy;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The kit can fail: for each rule, a policy with the mistake the rule is there to catch fails it.
 * Each broken policy is otherwise an ordinary one (it tries every backend from a position, as
 * round robin does), so that the rule's own check is what catches it.
 */
final class BrokenPoliciesTest {

  /** The kit over the policies {@code policy} makes. */
  private static PolicyContractKit kit(Supplier<Policy> policy) {
    return new PolicyContractKit() {
      @Override
      protected Policy policy() {
        return policy.get();
      }
    };
  }

  /** The first backend from {@code start} on that takes the request, or the snapshot's failure. */
  static Pick fromPosition(CustomPolicy.Snapshot<?> snapshot, int start) {
    int n = snapshot.size();
    for (int k = 0; k < n; k++) {
      Pick pick = snapshot.acquire((start + k) % n);
      if (pick != null) {
        return pick;
      }
    }
    return snapshot.failed();
  }

  /** A policy without per-backend state whose picker is {@code picker} over each snapshot. */
  private abstract static class Broken extends CustomPolicy<Void> {
    Broken(String name) {
      super(name);
    }

    @Override
    protected Void newBackendState(Backend backend) {
      return null;
    }
  }

  /** Rule 1's mistake: the first snapshot kept in a field of the policy and picked from ever after. */
  @Test
  void aPolicyThatKeepsItsFirstSnapshotFailsRule1() {
    Supplier<Policy> stale = () -> new Broken("keeps_first_snapshot") {
      private Snapshot<Void> first;

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        if (first == null || first.size() == 0) {
          first = snapshot;
        }
        Snapshot<Void> kept = first;
        return () -> fromPosition(kept, kept.randomInt(Math.max(1, kept.size())));
      }
    };

    assertThatThrownBy(() -> kit(stale).required_rule1_picksOnlyFromTheNewestSnapshot())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("pick 0 after the subset became [b4, b5, b6]");
  }

  /** Rule 2's mistake: a position taken modulo the snapshot's size, which is 0 for an empty subset. */
  @Test
  void aPolicyThatDividesByTheSubsetsSizeFailsRule2() {
    Supplier<Policy> modulo = () -> new Broken("modulo_size") {
      private final AtomicInteger cursor = new AtomicInteger();

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> fromPosition(snapshot, cursor.getAndIncrement() % snapshot.size());
      }
    };

    assertThatThrownBy(() -> kit(modulo).required_rule2_anEmptySubsetFailsFastWithNoBackends())
        .isInstanceOf(ArithmeticException.class)
        .hasMessage("/ by zero");
  }

  /** Rule 3's mistake: per-backend weights in an array sized for the first subset it saw. */
  @Test
  void aPolicyThatSizesItsStateForTheFirstSubsetFailsRule3() {
    Supplier<Policy> sizedOnce = () -> new Broken("sized_once") {
      private double[] weights;

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        if (weights == null && snapshot.size() > 0) {
          weights = new double[snapshot.size()];
        }
        double[] w = weights;
        return () -> {
          int start = snapshot.randomInt(Math.max(1, snapshot.size()));
          if (snapshot.size() > 0) {
            w[start] += 1;
          }
          return fromPosition(snapshot, start);
        };
      }
    };

    assertThatThrownBy(() -> kit(sizedOnce).required_rule3_survivesAChangingSubset())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("seed")
        .hasRootCauseInstanceOf(ArrayIndexOutOfBoundsException.class);
  }

  /** Rule 4's mistake: one random backend tried, and a failure when it cannot take the request. */
  @Test
  void aPolicyThatGivesUpAfterOneBackendFailsRule4() {
    Supplier<Policy> triesOne = () -> new Broken("tries_one") {
      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> {
          if (snapshot.size() == 0) {
            return snapshot.failed();
          }
          Pick pick = snapshot.acquire(snapshot.randomInt(snapshot.size()));
          return pick != null ? pick : snapshot.failed();
        };
      }
    };

    assertThatThrownBy(() -> kit(triesOne).required_rule4_neverPicksAnUnavailableOrFullBackend())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("a pick while [");
  }

  /** Rule 5's mistake: a backend acquired and dropped for another, so its request never ends. */
  @Test
  void aPolicyThatAcquiresTwoBackendsAndReturnsOneFailsRule5() {
    Supplier<Policy> acquiresTwo = () -> new Broken("acquires_two") {
      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> {
          int start = snapshot.randomInt(Math.max(1, snapshot.size()));
          Pick first = fromPosition(snapshot, start);
          // Looks at a second candidate the wrong way: acquire starts a request on it.
          Pick second = fromPosition(snapshot, start + 1);
          return second.isPicked() && second.backend().activeRequests() < first.backend().activeRequests() ? second : first;
        };
      }
    };

    assertThatThrownBy(() -> kit(acquiresTwo).required_rule5_everyPickIsOneRequestAndEveryOutcomeReachesItsBackend())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("requests started on b");
  }

  /** Rule 6's mistake: the candidates of each pick kept in a new array, for debugging. */
  @Test
  void aPolicyThatAllocatesPerPickFailsRule6() {
    Supplier<Policy> allocates = () -> new Broken("allocates") {
      volatile int[] lastCandidates;

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> {
          int[] candidates = new int[snapshot.size()];
          for (int i = 0; i < candidates.length; i++) {
            candidates[i] = snapshot.backend(i).activeRequests();
          }
          lastCandidates = candidates;
          return fromPosition(snapshot, snapshot.randomInt(Math.max(1, snapshot.size())));
        };
      }
    };

    assertThatThrownBy(() -> kit(allocates).required_rule6_picksOutcomesAndLoadReportsAllocateNothing())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("bytes allocated by 100,000 requests");
  }

  /**
   * Rule 7's mistake: a picker that assumes one thread at a time, as one that keeps its candidates
   * in a shared scratch list does, and breaks when two threads are inside at once. So that the
   * collision is certain, not merely likely, its 100th pick waits (at most 10 s) for a second
   * thread to come in.
   */
  @Test
  void aPolicyThatAssumesOneThreadFailsRule7() {
    Supplier<Policy> oneThread = () -> new Broken("one_thread") {
      private final AtomicInteger picks = new AtomicInteger();
      private final AtomicInteger inside = new AtomicInteger();
      private final AtomicBoolean collided = new AtomicBoolean();

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> {
          try {
            if (inside.incrementAndGet() > 1) {
              collided.set(true);
            }
            if (picks.incrementAndGet() == 100) {
              long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
              while (!collided.get() && System.nanoTime() - giveUp < 0) {
                Thread.onSpinWait();
              }
            }
            if (collided.get()) {
              throw new ConcurrentModificationException("one_thread: two threads picked at once");
            }
            return fromPosition(snapshot, 0);
          } finally {
            inside.decrementAndGet();
          }
        };
      }
    };

    assertThatThrownBy(() -> kit(oneThread).required_rule7_concurrentPicksKeepEveryCounterExact())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("exceptions thrown on the picking threads")
        .hasMessageContaining("two threads picked at once");
  }

  /** Rule 8's mistake: a pick that waits, here inside a lock held while it refreshes a shared cache. */
  @Test
  void aPolicyThatWaitsInsideALockFailsRule8() {
    Supplier<Policy> locks = () -> new Broken("locks") {
      private final Object lock = new Object();
      private final ThreadLocal<int[]> picks = ThreadLocal.withInitial(() -> new int[1]);

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> {
          synchronized (lock) {
            // Every 64th pick of a thread refreshes the cache, which takes a moment.
            if ((picks.get()[0]++ & 63) == 0) {
              LockSupport.parkNanos(1_000);
            }
            return fromPosition(snapshot, snapshot.randomInt(Math.max(1, snapshot.size())));
          }
        };
      }
    };

    assertThatThrownBy(() -> kit(locks).stochastic_rule8_picksNeverBlock())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("during its picks");
  }
}
