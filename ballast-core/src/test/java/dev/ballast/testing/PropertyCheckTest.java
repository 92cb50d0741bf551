package dev.ballast.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class PropertyCheckTest {

  @Test
  void checksSeedsOneToTheNumberOfTriesEachOnItsOwnInput() {
    List<Long> checked = new ArrayList<>();
    PropertyCheck.forAll(50, null, RandomInputs::anyLong, checked::add);

    List<Long> expected = new ArrayList<>();
    for (long seed = 1; seed <= 50; seed++) {
      expected.add(new RandomInputs(new SplittableRandom(seed)).anyLong());
    }
    assertThat(checked).isEqualTo(expected);
    assertThat(PropertyCheck.DEFAULT_TRIES).isEqualTo(1000);
  }

  record Pair(int a, int b) {
    static Pair draw(RandomInputs in) {
      return new Pair(in.intBetween(0, 9), in.intBetween(0, 9));
    }
  }

  @Test
  void aFailureNamesTheFirstFailingSeedAndItsInputAndKeepsTheCause() {
    long seed = 1;
    Pair failing = Pair.draw(new RandomInputs(new SplittableRandom(seed)));
    while (failing.a() + failing.b() < 17) {
      failing = Pair.draw(new RandomInputs(new SplittableRandom(++seed)));
    }

    long firstFailing = seed;
    Pair input = failing;
    assertThatThrownBy(() -> PropertyCheck.forAll(1000, null, Pair::draw,
        pair -> assertThat(pair.a() + pair.b()).as("sum").isLessThan(17)))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("property failed for seed " + firstFailing + " (seeds 1..1000; -Dballast.seed="
            + firstFailing + " replays it alone)\ninput: " + input + "\n[sum] ")
        .cause().isInstanceOf(AssertionError.class);
  }

  @Test
  void anExceptionFromTheCheckIsAFailureWithItsSeedToo() {
    assertThatThrownBy(() -> PropertyCheck.forAll(10, null, in -> in.intBetween(5, 5), n -> {
      throw new java.io.IOException("disk full at " + n);
    }))
        .isInstanceOf(AssertionError.class)
        .hasMessage("property failed for seed 1 (seeds 1..10; -Dballast.seed=1 replays it alone)\ninput: 5\ndisk full at 5")
        .cause().isInstanceOf(java.io.IOException.class);
  }

  @Test
  void theReplaySeedRunsThatSeedAlone() {
    List<Long> all = new ArrayList<>();
    PropertyCheck.forAll(20, null, RandomInputs::anyLong, all::add);

    List<Long> replayed = new ArrayList<>();
    PropertyCheck.forAll(20, "17", RandomInputs::anyLong, replayed::add);

    assertThat(replayed).containsExactly(all.get(16));
  }

  @Test
  void badArgumentsNameTheValue() {
    assertThatThrownBy(() -> PropertyCheck.forAll(0, null, RandomInputs::anyLong, n -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tries: 0 (expected: 1 or more)");
    assertThatThrownBy(() -> PropertyCheck.forAll(5, "seventeen", RandomInputs::anyLong, n -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ballast.seed: seventeen (expected: a whole number)");
  }
}
