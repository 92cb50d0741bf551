package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PickerPairsTest {

  @Test
  void aPairMeasuresBothSidesInEveryRound() throws InterruptedException {
    PickerPairs.Result result = PickerPairs.runPair("power_of_two_choices", "least_request_experimental", 10, 2, 2, 5);

    assertThat(result.ratios()).hasSize(2);
    for (double ratio : result.ratios()) {
      assertThat(ratio).isPositive().isLessThan(Double.POSITIVE_INFINITY);
    }
    assertThat(result.ballastNanos()).isPositive().isLessThan(Double.POSITIVE_INFINITY);
    assertThat(result.grpcNanos()).isPositive().isLessThan(Double.POSITIVE_INFINITY);
    assertThat(result.line()).contains("power_of_two_choices", "least_request_experimental", "10 backends", "2 thread(s)");
  }
}
