package dev.ballast.testing;

import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Checks a property on many inputs, each drawn from {@code new SplittableRandom(seed)} for seeds
 * 1, 2, ... up to the number of tries. The seeds are the same on every run, so a run that passes
 * passes again; a failure names its seed and the input drawn from it, and
 * {@code -Dballast.seed=SEED} runs that one seed alone (with Maven:
 * {@code mvn -pl MODULE -am verify -Dtest='CLASS#METHOD' -Dsurefire.failIfNoSpecifiedTests=false -Dballast.seed=SEED}).
 *
 * <p>There is no shrinking: {@link RandomInputs} draws small values and the edges of every range
 * often, so a failure usually comes with a small input already.
 */
public final class PropertyCheck {
  /** Tries for a property whose check is cheap. */
  public static final int DEFAULT_TRIES = 1000;
  /** The system property that replays one seed. */
  public static final String REPLAY_SEED = "ballast.seed";

  private PropertyCheck() {}

  /** What a property asserts of one input; it may throw, as the code under test does. */
  @FunctionalInterface
  public interface Check<T> {
    void accept(T input) throws Exception;
  }

  /** Checks {@code check} on {@link #DEFAULT_TRIES} inputs. */
  public static <T> void forAll(Function<RandomInputs, T> inputs, Check<? super T> check) {
    forAll(DEFAULT_TRIES, inputs, check);
  }

  /**
   * Checks {@code check} on the inputs that {@code inputs} draws for seeds 1 to {@code tries}, or
   * for the seed {@code -Dballast.seed} names alone. {@code inputs} draws everything a try needs;
   * what it returns is printed when the check fails, so it should say what was drawn (a record does).
   */
  public static <T> void forAll(int tries, Function<RandomInputs, T> inputs, Check<? super T> check) {
    forAll(tries, System.getProperty(REPLAY_SEED), inputs, check);
  }

  /** As above, with the replay seed given (null: none). */
  static <T> void forAll(int tries, String replay, Function<RandomInputs, T> inputs, Check<? super T> check) {
    if (tries < 1) {
      throw new IllegalArgumentException("tries: " + tries + " (expected: 1 or more)");
    }
    if (replay != null && !replay.isBlank()) {
      long seed;
      try {
        seed = Long.parseLong(replay.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(REPLAY_SEED + ": " + replay + " (expected: a whole number)", e);
      }
      tryOne(seed, tries, inputs, check);
      return;
    }
    for (long seed = 1; seed <= tries; seed++) {
      tryOne(seed, tries, inputs, check);
    }
  }

  private static <T> void tryOne(long seed, int tries, Function<RandomInputs, T> inputs, Check<? super T> check) {
    T input;
    try {
      input = inputs.apply(new RandomInputs(new SplittableRandom(seed)));
    } catch (RuntimeException e) {
      throw new AssertionError(where(seed, tries) + "\ndrawing the input failed: " + e, e);
    }
    try {
      check.accept(input);
    } catch (Exception | AssertionError e) {
      throw new AssertionError(where(seed, tries) + "\ninput: " + input + "\n" + e.getMessage(), e);
    }
  }

  private static String where(long seed, int tries) {
    return "property failed for seed " + seed + " (seeds 1.." + tries + "; -D" + REPLAY_SEED + "=" + seed
        + " replays it alone)";
  }
}
