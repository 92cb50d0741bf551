package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

final class DivisorTest {

  @Property(tries = 5000)
  void agreesWithHardwareDivisionOnTheLow32Bits(
      @ForAll @IntRange(min = 1, max = Integer.MAX_VALUE) int divisor, @ForAll long counter) {
    Divisor d = new Divisor(divisor);
    long low = counter & 0xFFFF_FFFFL;
    assertThat(d.remainder(counter)).isEqualTo((int) (low % divisor));
    assertThat(d.quotient(counter)).isEqualTo(low / divisor);
  }

  @Test
  void handlesTheEdges() {
    for (int divisor : new int[] {1, 2, 3, 7, 1000, Integer.MAX_VALUE}) {
      Divisor d = new Divisor(divisor);
      for (long counter : new long[] {0, 1, divisor - 1L, divisor, 0xFFFF_FFFFL, 0x1_0000_0000L, -1L}) {
        long low = counter & 0xFFFF_FFFFL;
        assertThat(d.remainder(counter)).as("%s mod %s", counter, divisor).isEqualTo((int) (low % divisor));
        assertThat(d.quotient(counter)).as("%s / %s", counter, divisor).isEqualTo(low / divisor);
      }
    }
    assertThatThrownBy(() -> new Divisor(0)).hasMessage("divisor: 0 (expected: 1 or more)");
  }
}
