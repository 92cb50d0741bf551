package dev.ballast.pick;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class DivisorTest {

  record Division(int divisor, long counter) {}

  /** 5,000 tries: a try is cheap, and the divisor ranges over all positive ints. */
  @Test
  void agreesWithHardwareDivisionOnTheLow32Bits() {
    forAll(5000, in -> new Division(in.intBetween(1, Integer.MAX_VALUE), in.anyLong()), input -> {
      Divisor d = new Divisor(input.divisor());
      long low = input.counter() & 0xFFFF_FFFFL;
      assertThat(d.remainder(input.counter())).isEqualTo((int) (low % input.divisor()));
      assertThat(d.quotient(input.counter())).isEqualTo(low / input.divisor());
    });
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
