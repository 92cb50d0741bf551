package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One condition a scenario's claim stands on, over the measured summaries of its policies, as a
 * scenario file writes it:
 *
 * <pre>
 *   SUBJECT METRIC OP NUMBER                  round_robin cpu-max-over-min &gt;= 1.5
 *   SUBJECT METRIC OP NUMBER x POLICY [METRIC] weighted_round_robin cpu-max-over-min &lt;= 0.5 x round_robin
 *   ... x POLICY [METRIC] +|- NUMBER           consistent_hash hit-rate &gt;= 1 x consistent_hash_unbounded - 0.05
 * </pre>
 *
 * SUBJECT is a policy name or {@code every} (each policy the scenario ran); OP is one of {@code <=
 * >= < > ==}. The second form compares with a factor times another policy's figure (the same
 * metric unless named), the third with that plus or minus a number (share points, for shares).
 *
 * @param text the check as written
 * @param subject the policy judged, or {@code every}
 * @param metric the figure judged
 * @param op how it compares with its bound
 * @param number the bound, or the factor of the other policy's figure
 * @param otherPolicy the policy whose figure the bound is a factor of, or null
 * @param otherMetric that policy's figure, or null
 * @param offset what is added to the factor times the other policy's figure; 0 without one
 */
@Experimental
public record Check(
    String text, String subject, Metric metric, Op op, double number, String otherPolicy, Metric otherMetric, double offset) {

  /** Each policy the scenario ran. */
  static final String EVERY = "every";

  /** How the measured figure compares with its bound. */
  public enum Op {
    /** At most the bound. */
    LE("<="),
    /** At least the bound. */
    GE(">="),
    /** Below the bound. */
    LT("<"),
    /** Above the bound. */
    GT(">"),
    /** Equal to the bound. */
    EQ("==");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    boolean test(double a, double b) {
      return switch (this) {
        case LE -> a <= b;
        case GE -> a >= b;
        case LT -> a < b;
        case GT -> a > b;
        case EQ -> a == b;
      };
    }

    static Op of(String symbol) {
      for (Op op : values()) {
        if (op.symbol.equals(symbol)) {
          return op;
        }
      }
      return null;
    }

    @Override
    public String toString() {
      return symbol;
    }
  }

  /** A condition on each run, as a scenario's best-among names it. */
  static final String CONDITION_GRAMMAR = "METRIC <=|>=|<|>|== NUMBER";

  static final String GRAMMAR = "POLICY|every METRIC <=|>=|<|>|== NUMBER [x POLICY [METRIC] [+|- NUMBER]]";

  /**
   * Parses a check; {@code policies} are the names a check may use.
   *
   * @throws IllegalArgumentException naming the part that is wrong and what was expected
   */
  static Check parse(String text, List<String> policies) {
    String[] words = text.trim().split("\\s+");
    if (words.length != 4 && (words.length < 6 || words.length > 9)) {
      throw new IllegalArgumentException("'" + text + "' (expected: " + GRAMMAR + ")");
    }
    String subject = words[0];
    if (!subject.equals(EVERY) && !policies.contains(subject)) {
      throw new IllegalArgumentException("'" + text + "': policy '" + subject + "' (expected: every, or one of "
          + String.join(", ", policies) + ")");
    }
    Metric metric = metric(text, words[1]);
    Op op = Op.of(words[2]);
    if (op == null) {
      throw new IllegalArgumentException("'" + text + "': comparison '" + words[2] + "' (expected: <=, >=, <, > or ==)");
    }
    double number;
    try {
      number = Double.parseDouble(words[3]);
    } catch (NumberFormatException e) {
      number = Double.NaN;
    }
    if (!Double.isFinite(number) || !words[3].matches("-?[0-9.]+")) {
      throw new IllegalArgumentException("'" + text + "': number '" + words[3] + "' (expected: a decimal number such as 0.95)");
    }
    if (words.length == 4) {
      return new Check(text.trim(), subject, metric, op, number, null, null, 0);
    }
    if (!words[4].equals("x")) {
      throw new IllegalArgumentException("'" + text + "': '" + words[4] + "' (expected: x, as in 0.5 x round_robin)");
    }
    String other = words[5];
    if (!policies.contains(other)) {
      throw new IllegalArgumentException("'" + text + "': policy '" + other + "' (expected: one of " + String.join(", ", policies) + ")");
    }
    int next = 6;
    Metric otherMetric = metric;
    if (words.length == 7 || words.length == 9) {
      otherMetric = metric(text, words[6]);
      next = 7;
    }
    double offset = 0;
    if (words.length > next) {
      if (words.length != next + 2 || !(words[next].equals("+") || words[next].equals("-"))) {
        throw new IllegalArgumentException("'" + text + "': '" + String.join(" ", java.util.Arrays.asList(words).subList(next, words.length))
            + "' (expected: + or - and a number, as in 1 x consistent_hash_unbounded - 0.05)");
      }
      if (!words[next + 1].matches("[0-9.]+") || !Double.isFinite(parse(words[next + 1]))) {
        throw new IllegalArgumentException("'" + text + "': number '" + words[next + 1] + "' (expected: a decimal number such as 0.05)");
      }
      offset = (words[next].equals("-") ? -1 : 1) * parse(words[next + 1]);
    }
    return new Check(text.trim(), subject, metric, op, number, other, otherMetric, offset);
  }

  private static double parse(String number) {
    try {
      return Double.parseDouble(number);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static Metric metric(String text, String key) {
    Metric metric = Metric.byKey(key);
    if (metric == null) {
      throw new IllegalArgumentException("'" + text + "': metric '" + key + "' (expected: one of " + String.join(", ", Metric.keys()) + ")");
    }
    return metric;
  }

  /** How one check came out for one policy. */
  public record Result(Check check, String policy, double value, double otherValue, double bound, Outcome outcome) {
    /**
     * The measured figure next to what it was held to.
     *
     * @return e.g. {@code weighted_round_robin cpu max/min 1.44 <= 0.5 x 3.31}
     */
    public String describe() {
      Check c = check;
      StringBuilder text = new StringBuilder(policy).append(' ').append(c.metric.label()).append(' ').append(c.metric.format(value));
      if (outcome == Outcome.NOT_JUDGED) {
        return text.append(" (not judged: ").append(c.otherPolicy != null ? c.otherPolicy : policy).append(" not run or no value)").toString();
      }
      text.append(' ').append(c.op).append(' ');
      if (c.otherPolicy == null) {
        text.append(c.metric.format(c.number));
      } else {
        text.append(plain(c.number)).append(" x ").append(c.otherPolicy).append("'s ")
            .append(c.otherMetric == c.metric ? "" : c.otherMetric.label() + " ")
            .append(c.otherMetric.format(otherValue));
        if (c.offset != 0) {
          text.append(c.offset < 0 ? " - " : " + ").append(plain(Math.abs(c.offset)));
        }
      }
      return text.toString();
    }
  }

  /** How a check came out. */
  public enum Outcome {
    /** The figure is within its bound. */
    HOLDS,
    /** The figure is outside its bound. */
    FAILS,
    /** The figure or its bound does not apply to the run (NaN), so nothing was judged. */
    NOT_JUDGED
  }

  /** Evaluates the check over a scenario's policies (name to summary, in run order). */
  List<Result> evaluate(List<String> names, List<RunResult.Summary> summaries) {
    List<Result> results = new ArrayList<>();
    List<String> subjects = subject.equals(EVERY) ? names : List.of(subject);
    for (String policy : subjects) {
      int i = names.indexOf(policy);
      double value = i < 0 ? Double.NaN : metric.of(summaries.get(i));
      double other = Double.NaN;
      double bound = number;
      if (otherPolicy != null) {
        int j = names.indexOf(otherPolicy);
        other = j < 0 ? Double.NaN : otherMetric.of(summaries.get(j));
        bound = number * other + offset;
      }
      Outcome outcome = Double.isNaN(value) || Double.isNaN(bound)
          ? Outcome.NOT_JUDGED
          : op.test(value, bound) ? Outcome.HOLDS : Outcome.FAILS;
      results.add(new Result(this, policy, value, other, bound, outcome));
    }
    return results;
  }

  private static String plain(double number) {
    return number == Math.rint(number) ? Long.toString((long) number) : String.format(Locale.ROOT, "%s", number);
  }
}
