package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

final class ShuffleTest {

  @Property
  void isAPermutation(@ForAll @IntRange(min = 1, max = 500) int n, @ForAll long seed) {
    int[] p = Shuffle.permutation(n, seed);
    boolean[] seen = new boolean[n];
    for (int element : p) {
      assertThat(seen[element]).as("element %s twice", element).isFalse();
      seen[element] = true;
    }
  }

  @Property
  void addingAnElementMovesExactlyOneOldElement(@ForAll @IntRange(min = 1, max = 500) int n, @ForAll long seed) {
    int[] before = Shuffle.permutation(n, seed);
    int[] after = Shuffle.permutation(n + 1, seed);
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
  }
}
