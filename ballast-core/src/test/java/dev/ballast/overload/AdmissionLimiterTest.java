package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.health.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

final class AdmissionLimiterTest {
  private static final long MS = 1_000_000;

  private final FakeClock clock = new FakeClock();
  private final AtomicReference<Double> cpu = new AtomicReference<>(0.5);

  private AdmissionLimiter cpuLimiter() {
    return AdmissionLimiter.create(LimiterConfig.defaults(), cpu::get, clock);
  }

  /** One 100 ms slot in which {@code completions} requests ran {@code serviceMs} each. */
  private void slotOf(AdmissionLimiter limiter, int completions, long serviceMs) {
    for (int i = 0; i < completions; i++) {
      assertThat(limiter.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
      limiter.onComplete(0, serviceMs * MS);
    }
    clock.advance(Duration.ofMillis(100));
  }

  @Test
  void aCoolServerAdmitsEverythingWhateverItHasInFlight() {
    AdmissionLimiter limiter = cpuLimiter();
    for (int i = 0; i < 5000; i++) {
      assertThat(limiter.tryAcquire(Criticality.SHEDDABLE)).isTrue();
    }
    assertThat(limiter.inFlight()).isEqualTo(5000);
    assertThat(limiter.isEnforcing()).isFalse();
  }

  @Test
  void theCpuLimitIsMaxPassTimesMinServiceTimesTheQueueFactor() {
    cpu.set(0.9);
    AdmissionLimiter limiter = cpuLimiter();
    // Slots: 40 passes of 20 ms, 80 of 10 ms, 60 of 15 ms. maxPass = 800/s, minService = 10 ms:
    // 8 requests can run at once; queue factor 4: limit 32.
    slotOf(limiter, 40, 20);
    slotOf(limiter, 80, 10);
    slotOf(limiter, 60, 15);
    limiter.tryAcquire(Criticality.CRITICAL); // the first call of the new slot recomputes
    limiter.onDropped();
    assertThat(limiter.limit()).isEqualTo(32);
    assertThat(limiter.isEnforcing()).isTrue();
  }

  @Test
  void cpuIsAveragedSoThatOneBusySlotDoesNotStartShedding() {
    AdmissionLimiter limiter = cpuLimiter(); // 0.5 at first
    slotOf(limiter, 10, 10);
    slotOf(limiter, 10, 10); // its first call reads 0.5
    cpu.set(1.0);
    limiter.tryAcquire(Criticality.CRITICAL);
    // Readings 0.5, then 1.0 with weight 1/10: 0.55.
    assertThat(limiter.isEnforcing()).isFalse();
    for (int i = 0; i < 20; i++) {
      slotOf(limiter, 10, 10);
    }
    assertThat(limiter.isEnforcing()).isTrue();
  }

  @Test
  void aHotServerShedsAboveItsLimitAndLowerCriticalitiesFirst() {
    cpu.set(0.95);
    AdmissionLimiter limiter = cpuLimiter();
    slotOf(limiter, 40, 20);
    slotOf(limiter, 80, 10);
    clock.advance(Duration.ofMillis(100));
    // Limit 32: SHEDDABLE up to 16 in flight, SHEDDABLE_PLUS 24, CRITICAL 32, CRITICAL_PLUS 48.
    int sheddable = admitted(limiter, Criticality.SHEDDABLE, 100);
    int sheddablePlus = admitted(limiter, Criticality.SHEDDABLE_PLUS, 100);
    int critical = admitted(limiter, Criticality.CRITICAL, 100);
    int criticalPlus = admitted(limiter, Criticality.CRITICAL_PLUS, 100);
    assertThat(limiter.limit()).isEqualTo(32);
    assertThat(new int[] {sheddable, sheddablePlus, critical, criticalPlus}).containsExactly(16, 8, 8, 16);
    assertThat(limiter.shed(Criticality.SHEDDABLE)).isEqualTo(84);
    assertThat(limiter.shed(Criticality.CRITICAL_PLUS)).isEqualTo(84);
    assertThat(limiter.inFlight()).isEqualTo(48);
  }

  private static int admitted(AdmissionLimiter limiter, Criticality c, int tries) {
    int n = 0;
    for (int i = 0; i < tries; i++) {
      if (limiter.tryAcquire(c)) {
        n++;
      }
    }
    return n;
  }

  @Test
  void afterASheddingSpellTheLimiterKeepsItsLimitForTheCoolOffThenLetsGo() {
    // Two slots: a reading weighs 1/2. No completions: the limit stays at its initial 10.
    LimiterConfig config =
        LimiterConfig.builder().window(Duration.ofMillis(200)).slots(2).minLimit(1).initialLimit(10).build();
    cpu.set(0.95);
    AdmissionLimiter limiter = AdmissionLimiter.create(config, cpu::get, clock);
    clock.advance(Duration.ofMillis(100));
    assertThat(admitted(limiter, Criticality.CRITICAL, 11)).isEqualTo(10);
    cpu.set(0.0);
    clock.advance(Duration.ofMillis(100));
    // The average is 0.475, cool, but a request was shed within the cool-off.
    assertThat(limiter.tryAcquire(Criticality.CRITICAL)).isFalse();
    clock.advance(Duration.ofMillis(1001));
    assertThat(limiter.tryAcquire(Criticality.CRITICAL)).isTrue();
  }

  @Test
  void anUnreadableCpuCountsAsHot() {
    AdmissionLimiter limiter = cpuLimiter();
    cpu.set(Double.NaN);
    clock.advance(Duration.ofMillis(100));
    limiter.tryAcquire(Criticality.CRITICAL);
    assertThat(limiter.isEnforcing()).isTrue();
  }

  @Test
  void theGradientLimiterShrinksWhenLatencyRisesAboveToleranceTimesItsBaseline() {
    LimiterConfig config =
        LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).initialLimit(100).baselineRise(1.0).build();
    AdmissionLimiter limiter = AdmissionLimiter.create(config, () -> 0, clock);
    // Baseline 10 ms while 60 are in flight.
    hold(limiter, 60);
    completeSlot(limiter, 10);
    int atBaseline = limiter.limit();
    // sqrt growth at the baseline: 100 + 0.2 * 10 = 102.
    assertThat(atBaseline).isEqualTo(102);
    for (int i = 0; i < 60; i++) {
      limiter.onDropped();
    }
    // Latency 40 ms: 4x the baseline, gradient min(1, 2 * 10 / 40) = 0.5 -> target 0.5 * 102 + sqrt(102).
    completeSlot(limiter, 40);
    double expected = 0.8 * 102 + 0.2 * (0.5 * 102 + Math.sqrt(102));
    assertThat(limiter.limit()).isEqualTo((int) Math.ceil(expected));
    for (int i = 0; i < 100; i++) {
      completeSlot(limiter, 40);
    }
    // Converging from above to the fixed point of L = 0.9 L + 0.2 sqrt(L): L = 4.
    assertThat(limiter.limit()).isBetween(4, 5);
  }

  @Test
  void theGradientLimiterDoesNotGrowWhileDemandKeepsItHalfEmpty() {
    LimiterConfig config = LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).initialLimit(100).build();
    AdmissionLimiter limiter = AdmissionLimiter.create(config, () -> 0, clock);
    for (int i = 0; i < 20; i++) {
      completeSlot(limiter, 10);
    }
    assertThat(limiter.limit()).isEqualTo(100);
  }

  private void hold(AdmissionLimiter limiter, int requests) {
    for (int i = 0; i < requests; i++) {
      assertThat(limiter.tryAcquire(Criticality.CRITICAL)).isTrue();
    }
  }

  /** A slot with 10 completions of {@code latencyMs} (queued half of it), then the next slot's recompute. */
  private void completeSlot(AdmissionLimiter limiter, long latencyMs) {
    for (int i = 0; i < 10; i++) {
      assertThat(limiter.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
      limiter.onComplete(latencyMs * MS / 2, latencyMs * MS / 2);
    }
    clock.advance(Duration.ofMillis(100));
    assertThat(limiter.tryAcquire(Criticality.CRITICAL_PLUS)).isTrue();
    limiter.onDropped();
  }
}
