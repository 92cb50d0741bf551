package dev.ballast.subset;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testing.RandomInputs;
import org.junit.jupiter.api.Test;

final class ShuffleTest {

  /** A permutation's length and seed. */
  record Input(int n, long seed) {
    static Input draw(RandomInputs in) {
      return new Input(in.intBetween(1, 500), in.anyLong());
    }
  }

  @Test
  void isAPermutation() {
    forAll(Input::draw, input -> {
      int[] p = Shuffle.permutation(input.n(), input.seed());
      boolean[] seen = new boolean[input.n()];
      for (int element : p) {
        assertThat(seen[element]).as("element %s twice", element).isFalse();
        seen[element] = true;
      }
    });
  }

  @Test
  void addingAnElementMovesExactlyOneOldElement() {
    forAll(Input::draw, input -> {
      int n = input.n();
      int[] before = Shuffle.permutation(n, input.seed());
      int[] after = Shuffle.permutation(n + 1, input.seed());
      int changed = 0;
      for (int position = 0; position < n; position++) {
        if (before[position] != after[position]) {
          changed++;
          assertThat(after[position]).isEqualTo(n);
          assertThat(after[n]).isEqualTo(before[position]);
        }
      }
      assertThat(changed).isLessThanOrEqualTo(1);
      if (changed == 0) {
        assertThat(after[n]).isEqualTo(n);
      }
    });
  }
}
