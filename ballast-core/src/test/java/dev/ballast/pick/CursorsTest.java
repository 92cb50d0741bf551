package dev.ballast.pick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class CursorsTest {

  @Test
  void consecutiveThreadIdsNeverShareAStripeAndStripesFillEvenly() {
    Cursors cursors = new Cursors(8, 100, 0);
    int[] perStripe = new int[8];
    for (long id = 1; id <= 80_000; id++) {
      assertThat(cursors.stripeOf(id)).isNotEqualTo(cursors.stripeOf(id + 1));
      perStripe[cursors.stripeOf(id)]++;
    }
    for (int count : perStripe) {
      assertThat(count).isBetween(9_900, 10_100);
    }
  }

  @Test
  void stripesStartSpreadOverTheBackends() {
    Cursors cursors = new Cursors(4, 10, 7);
    assertThat(cursors.get(0)).isEqualTo(7);
    assertThat(cursors.get(1)).isEqualTo(9);
    assertThat(cursors.get(2)).isEqualTo(2);
    assertThat(cursors.get(3)).isEqualTo(4);
  }

  @Test
  void oneStripeServesEveryThread() {
    Cursors cursors = new Cursors(1, 10, 3);
    for (long id = 0; id < 1000; id++) {
      assertThat(cursors.stripeOf(id)).isZero();
    }
    cursors.set(0, 4);
    assertThat(cursors.get(cursors.stripe())).isEqualTo(4);
  }

  @Test
  void aStripeCountThatIsNotAPowerOfTwoIsRejected() {
    assertThatThrownBy(() -> new Cursors(3, 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("stripes: 3 (expected: a power of two in 1..64)");
  }
}
