package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.time.NanoClock;

import org.junit.jupiter.api.Test;

class PickerPairsTest {

  @Test
  void aPairMeasuresBothSidesInEveryRound() throws InterruptedException {
    PickerPairs.Result result = PickerPairs.runPair("power_of_two_choices", "least_request_experimental", 10, 2, 2, 5, 0);

    assertThat(result.ratios()).hasSize(2);
    for (double ratio : result.ratios()) {
      assertThat(ratio).isPositive().isLessThan(Double.POSITIVE_INFINITY);
    }
    assertThat(result.ballastNanos()).isPositive().isLessThan(Double.POSITIVE_INFINITY);
    assertThat(result.grpcNanos()).isPositive().isLessThan(Double.POSITIVE_INFINITY);
    assertThat(result.line()).contains("power_of_two_choices", "least_request_experimental", "10 backends", "2 thread(s)");
  }

  @Test
  void withRequestsLeftInFlightEveryBackendIsBusyAndMeasuredPicksStillFindRoom() throws InterruptedException {
    Picker picker = PickerBenchmark.ballastPicker("least_loaded_round_robin", 10, NanoClock.cached());
    PickerBenchmark.leaveInFlight(picker, 10, 4);
    for (int i = 0; i < 20; i++) {
      Pick pick = picker.pick();
      // Every backend holds 4; this pick is the fifth on its backend, and ends at once.
      assertThat(pick.backend().activeRequests()).isEqualTo(5);
      pick.onCancel();
    }

    // 99 in flight on every backend leaves one place each: a pair still runs (a failed pick fails it).
    PickerPairs.Result result = PickerPairs.runPair("fair_share", "least_request_experimental", 10, 2, 2, 5, 99);
    assertThat(result.line()).contains("99 in flight per backend");
    assertThat(result.ballastNanos()).isPositive().isLessThan(Double.POSITIVE_INFINITY);
  }

  @Test
  void anInFlightCountAtTheLimitIsRejectedByName() {
    assertThatThrownBy(() -> PickerPairs.runPair("fair_share", "least_request_experimental", 10, 1, 1, 5, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("inFlight: 100 (expected: 0 to 99");
  }
}
