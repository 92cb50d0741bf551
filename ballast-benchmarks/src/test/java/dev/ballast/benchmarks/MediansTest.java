package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MediansTest {

  @Test
  void theMiddleValueOrTheMeanOfTheMiddleTwo() {
    double[] even = {4, 1, 3, 2};
    assertThat(Medians.of(even)).isEqualTo(2.5);
    assertThat(even).containsExactly(4, 1, 3, 2);
    assertThat(Medians.of(new double[] {5, 1, 3})).isEqualTo(3);
  }

  @Test
  void noValuesIsAnError() {
    assertThatThrownBy(() -> Medians.of(new double[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("values: empty (expected: at least one)");
  }
}
