package dev.ballast.pick;

import static dev.ballast.pick.TestBalancers.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FewestInFlightPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the balancer does for a {@link CustomPolicy}: snapshots, the pick handles, the hooks. */
final class CustomPolicyTest {

  /** Always the first backend that takes the request; counts its snapshots and refreshes. */
  private static class FirstAvailable extends CustomPolicy<String> {
    final AtomicInteger pickers = new AtomicInteger();
    final AtomicInteger refreshes = new AtomicInteger();
    final List<String> hooks = new ArrayList<>();

    FirstAvailable() {
      super("first_available");
    }

    @Override
    protected String newBackendState(Backend backend) {
      return "state of " + backend.key();
    }

    @Override
    protected Picker newPicker(Snapshot<String> snapshot) {
      pickers.incrementAndGet();
      return () -> TestBalancers.firstAvailable(snapshot);
    }

    @Override
    protected Picker refresh(Picker current, Snapshot<String> snapshot) {
      refreshes.incrementAndGet();
      return current;
    }

    @Override
    protected long refreshIntervalNanos() {
      return 123_000_000L;
    }

    @Override
    protected synchronized void onSuccess(String state, long latencyNanos) {
      hooks.add("success " + state + " " + latencyNanos);
    }

    @Override
    protected synchronized void onFailure(String state, FailureKind kind, long latencyNanos) {
      hooks.add("failure " + kind + " " + state + " " + latencyNanos);
    }

    @Override
    protected synchronized void onCancel(String state) {
      hooks.add("cancel " + state);
    }

    @Override
    protected synchronized void onLoadReport(String state, double utilization, double rps, double eps, long nowNanos) {
      hooks.add("report " + state + " " + utilization + " " + rps + " " + eps + " at " + nowNanos);
    }
  }

  private static Balancer connected(Policy policy, FakeClock clock, int n) {
    return TestBalancers.connected(
        policy, HealthConfig.builder().activeRequestLimit(2).build(), clock, new SplittableRandom(1), keys("b", n));
  }

  @Test
  void aPickIsTheChosenBackendsHandleAndAFullOrUnavailableBackendIsPassedOver() {
    Balancer balancer = connected(new FirstAvailable(), new FakeClock(), 3);

    List<String> picked = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Pick pick = balancer.pick();
      picked.add(pick.isPicked() ? pick.backend().key() : pick.status().name());
    }
    balancer.backend("b1").onLameDuck();

    // Limit 2 per backend: two on each, then all full.
    assertThat(picked).containsExactly("b0", "b0", "b1", "b1", "b2", "b2");
    assertThat(balancer.pick().status()).isEqualTo(PickStatus.ALL_AT_LIMIT);
    assertThat(balancer.backend("b0").activeRequests()).isEqualTo(2);
  }

  @Test
  void aFailedPickSaysWhyNoBackendCouldTakeTheRequest() {
    FakeClock clock = new FakeClock();
    Balancer empty = connected(new FirstAvailable(), clock, 0);
    Balancer unavailable = connected(new FirstAvailable(), clock, 2);
    unavailable.backend("b0").onLameDuck();
    unavailable.backend("b1").onConnectFailed();

    assertThat(empty.pick().status()).isEqualTo(PickStatus.NO_BACKENDS);
    assertThat(unavailable.pick().status()).isEqualTo(PickStatus.ALL_UNAVAILABLE);
    assertThat(unavailable.failedPicks(PickStatus.ALL_UNAVAILABLE)).isEqualTo(1);
  }

  @Test
  void theHooksGetTheBackendsStateWithEveryOutcomeAndEveryAcceptedReport() {
    FakeClock clock = new FakeClock();
    FirstAvailable policy = new FirstAvailable();
    Balancer balancer = connected(policy, clock, 1);

    balancer.pick().onSuccess(5);
    balancer.pick().onFailure(FailureKind.OVERLOADED, -3);
    balancer.pick().onCancel();
    Pick pick = balancer.pick();
    assertThat(pick.reportLoad(0.25, 0, 40, 2)).isTrue();
    assertThat(pick.reportLoad(Double.NaN, 0, 40, 2)).isFalse();
    assertThat(balancer.reportLoad("b0", 0.5, 0.75, 10, 0)).isTrue();
    pick.onSuccess(7);

    assertThat(policy.hooks).containsExactly(
        "success state of b0 5",
        "failure OVERLOADED state of b0 0",
        "cancel state of b0",
        "report state of b0 0.25 40.0 2.0 at " + clock.nanoTime(),
        "report state of b0 0.75 10.0 0.0 at " + clock.nanoTime(),
        "success state of b0 7");
    Backend b0 = balancer.backend("b0");
    assertThat(b0.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(2);
    assertThat(b0.requestsEnded(RequestOutcome.OVERLOADED)).isEqualTo(1);
    assertThat(b0.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
    assertThat(balancer.negativeLatencies()).isEqualTo(1);
    assertThat(balancer.rejectedLoadReports()).isEqualTo(1);
  }

  @Test
  void aBackendKeepsItsStateWhileItStaysAndGetsANewOneWhenItComesBack() {
    FewestInFlightPolicy policy = new FewestInFlightPolicy(new FewestInFlightPolicy.Config(2));
    Balancer balancer = connected(policy, new FakeClock(), 2);
    FewestInFlightPolicy.Counts first = policy.counts("b0");

    balancer.updateSubset(List.of("b1", "b0"));
    assertThat(policy.counts("b0")).isSameAs(first);
    balancer.updateSubset(List.of("b1"));
    balancer.updateSubset(List.of("b1", "b0"));

    assertThat(policy.counts("b0")).isNotSameAs(first);
  }

  @Test
  void eachSubsetChangeBuildsAPickerAndRefreshRunsAtThePolicysInterval() {
    FirstAvailable policy = new FirstAvailable();
    Balancer balancer = connected(policy, new FakeClock(), 2);
    int built = policy.pickers.get();

    balancer.updateSubset(List.of("b1"));
    balancer.refresh();

    assertThat(policy.pickers.get()).isEqualTo(built + 1);
    assertThat(policy.refreshes.get()).isEqualTo(1);
    assertThat(balancer.refreshIntervalNanos()).isEqualTo(123_000_000L);
    assertThat(balancer.pick().backend().key()).isEqualTo("b1");
  }

  @Test
  void aPickerThatAnswersNullIsAnErrorNamingThePolicy() {
    CustomPolicy<Void> broken = new CustomPolicy<>("answers_null") {
      @Override
      protected Void newBackendState(Backend backend) {
        return null;
      }

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return () -> null;
      }
    };
    Balancer balancer = connected(broken, new FakeClock(), 1);

    assertThatThrownBy(balancer::pick)
        .isInstanceOf(NullPointerException.class)
        .hasMessage("answers_null: the picker returned null (expected: snapshot.acquire(i) of a backend it took,"
            + " or snapshot.failed())");
  }

  @Test
  void aPolicyWithoutAPickerIsAnErrorNamingThePolicy() {
    CustomPolicy<Void> broken = new CustomPolicy<>("no_picker") {
      @Override
      protected Void newBackendState(Backend backend) {
        return null;
      }

      @Override
      protected Picker newPicker(Snapshot<Void> snapshot) {
        return null;
      }
    };

    assertThatThrownBy(() -> Balancer.create(broken))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("no_picker: newPicker returned null (expected: a picker over the snapshot)");
  }

  @Test
  void theSnapshotsDrawsAreReproducibleFromTheBalancersSeed() {
    List<List<String>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      Balancer balancer = connected(new FewestInFlightPolicy(new FewestInFlightPolicy.Config(1)), new FakeClock(), 8);
      runs.add(TestBalancers.pickAndRelease(balancer, 50));
    }

    assertThat(runs.get(0)).isEqualTo(runs.get(1));
    assertThat(runs.get(0).stream().distinct().count()).isGreaterThan(1);
  }

  @Test
  void withZonesTheCustomPolicyPicksInTheClientsOwnZone() {
    FakeClock clock = new FakeClock();
    Balancer balancer = Balancer.builder(new FirstAvailable()).clock(clock).zone("a")
        .reproducibleFrom(new SplittableRandom(3)).build();
    balancer.updateSubset(List.of("x0", "x1", "y0"), Map.of("x0", "b", "x1", "a", "y0", "b"));
    for (String key : List.of("x0", "x1", "y0")) {
      balancer.backend(key).onConnected();
    }
    clock.advance(Duration.ofSeconds(1));
    balancer.refresh();

    for (int i = 0; i < 10; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.backend().key()).isEqualTo("x1");
      pick.onSuccess(1_000);
    }
  }
}
