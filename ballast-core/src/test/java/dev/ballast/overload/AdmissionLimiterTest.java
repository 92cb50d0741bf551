package dev.ballast.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

final class AdmissionLimiterTest {
  private static final long MS = 1_000_000;

  private final FakeClock clock = new FakeClock();
  private final AtomicReference<Double> cpu = new AtomicReference<>(0.5);

  private static final LimiterConfig CPU_ONLY = LimiterConfig.builder().kind(LimiterConfig.Kind.CPU).build();

  /** The CPU kind, the talk's design: its gate and cap are also the default kind's CPU side. */
  private AdmissionLimiter cpuLimiter() {
    return AdmissionLimiter.create(CPU_ONLY, cpu::get, clock);
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
    assertThat(admittedLeastImportantFirst(limiter)).containsExactly(16, 8, 8, 16);
    assertThat(limiter.limit()).isEqualTo(32);
    assertThat(limiter.shed(Criticality.SHEDDABLE)).isEqualTo(84);
    assertThat(limiter.shed(Criticality.CRITICAL_PLUS)).isEqualTo(84);
    assertThat(limiter.inFlight()).isEqualTo(48);
  }

  /** Requests admitted of 100 tries of each criticality, SHEDDABLE first, none ending. */
  private static int[] admittedLeastImportantFirst(AdmissionLimiter limiter) {
    return new int[] {
      admitted(limiter, Criticality.SHEDDABLE, 100),
      admitted(limiter, Criticality.SHEDDABLE_PLUS, 100),
      admitted(limiter, Criticality.CRITICAL, 100),
      admitted(limiter, Criticality.CRITICAL_PLUS, 100)
    };
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
    LimiterConfig config = CPU_ONLY.toBuilder().window(Duration.ofMillis(200)).slots(2).minLimit(1).initialLimit(10).build();
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

  // ---- The default kind's latency side, on a CPU that stays cool ----

  /** The default kind on a CPU that stays cool (5%): only latency can make it hot. */
  private CpuLimiter coolDefaultLimiter() {
    return (CpuLimiter) AdmissionLimiter.create(LimiterConfig.defaults(), () -> 0.05, clock);
  }

  /** {@code slots} slots as {@link #slotOf}. */
  private void slotsOf(AdmissionLimiter limiter, int slots, int completions, long latencyMs) {
    for (int s = 0; s < slots; s++) {
      slotOf(limiter, completions, latencyMs);
    }
  }

  /** The first call of a slot recomputes; it takes no room. */
  private static void recompute(AdmissionLimiter limiter) {
    if (limiter.tryAcquire(Criticality.CRITICAL_PLUS)) {
      limiter.onDropped();
    }
  }

  /** The gradient limiter's estimate after {@code slots} slots of latency far above its baseline, from {@code from}. */
  private static int shrunk(double from, int slots) {
    double estimate = from;
    for (int s = 0; s < slots; s++) {
      // Gradient at its floor, 0.5; smoothing 0.2.
      estimate = 0.8 * estimate + 0.2 * (0.5 * estimate + Math.sqrt(estimate));
    }
    return (int) Math.ceil(estimate);
  }

  @Test
  void untilLatencyHasABaselineTheDefaultHoldsItsInitialLimit() {
    // A server that starts overloaded must not queue without bound while it learns what its
    // latency is: until then it counts as hot, as an unreadable CPU does.
    CpuLimiter limiter = coolDefaultLimiter();
    assertThat(admitted(limiter, Criticality.CRITICAL, 500)).isEqualTo(100);
    assertThat(limiter.isEnforcing()).isTrue();
    assertThat(limiter.latencyHot()).isTrue();
  }

  @Test
  void latencyFarAboveItsBaselineMakesACoolServerShedAndItsReturnLetsItGo() {
    CpuLimiter limiter = coolDefaultLimiter();
    slotsOf(limiter, 10, 20, 20);
    recompute(limiter);
    assertThat(limiter.latencyHot()).isFalse();
    assertThat(limiter.isEnforcing()).isFalse();
    // Baseline: 20 ms with its margin of two standard errors over a slot of 20, about 29 ms. The
    // window's mean climbs past twice that within three slots.
    slotsOf(limiter, 3, 20, 200);
    recompute(limiter);
    assertThat(limiter.latencyHot()).isTrue();
    assertThat(limiter.cpuHot()).isFalse();
    assertThat(limiter.isEnforcing()).isTrue();
    // The limit is the one latency holds: the gradient's estimate, shrinking from the initial 100
    // by up to 10% a slot.
    assertThat(limiter.limit()).isEqualTo(shrunk(100, 3));

    // Back to 20 ms: once the slow slots leave the window and the cool-off has passed, it lets go.
    slotsOf(limiter, 20, 20, 20);
    recompute(limiter);
    assertThat(limiter.latencyHot()).isFalse();
    assertThat(limiter.isEnforcing()).isFalse();
  }

  @Test
  void whenLatencyAloneSaysOverloadedLowerCriticalitiesAreShedFirst() {
    CpuLimiter limiter = coolDefaultLimiter();
    slotsOf(limiter, 10, 20, 20);
    slotsOf(limiter, 3, 20, 200);
    recompute(limiter);
    assertThat(limiter.isEnforcing()).isTrue();
    // Limit 79: SHEDDABLE up to 40 in flight, SHEDDABLE_PLUS 60, CRITICAL 79, CRITICAL_PLUS 119.
    assertThat(limiter.limit()).isEqualTo(79);
    assertThat(admittedLeastImportantFirst(limiter)).containsExactly(40, 20, 19, 40);
    assertThat(limiter.shed(Criticality.SHEDDABLE)).isEqualTo(60);
    assertThat(limiter.shed(Criticality.CRITICAL_PLUS)).isEqualTo(60);
  }

  @Test
  void aSlotOfAFewFastRequestsDoesNotSetTheBaseline() {
    CpuLimiter limiter = coolDefaultLimiter();
    // Nine requests of 1 ms: too few to stand for the service. The baseline stays unknown.
    slotOf(limiter, 9, 1);
    recompute(limiter);
    assertThat(limiter.latencyBaselineMicros()).isEqualTo(Double.MAX_VALUE);
    // Then the service's usual 20 ms, over slots of 20 completions: never hot.
    for (int s = 0; s < 20; s++) {
      slotOf(limiter, 20, 20);
      recompute(limiter);
      assertThat(limiter.latencyHot()).as("slot %d", s).isFalse();
    }
    assertThat(limiter.isEnforcing()).isFalse();
    assertThat(limiter.latencyBaselineMicros()).isGreaterThan(20_000);
  }

  @Test
  void aQuietServerLearnsItsBaselineOverTheWholeWindow() {
    CpuLimiter limiter = coolDefaultLimiter();
    // Two requests of 30 ms a slot: no slot has ten, five slots together do.
    for (int s = 0; s < 5; s++) {
      slotOf(limiter, 2, 30);
      recompute(limiter);
    }
    assertThat(limiter.latencyBaselineMicros()).isLessThan(Double.MAX_VALUE);
    assertThat(limiter.latencyHot()).isFalse();
    assertThat(limiter.isEnforcing()).isFalse();
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
