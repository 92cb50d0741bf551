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
 * </pre>
 *
 * SUBJECT is a policy name or {@code every} (each policy the scenario ran); OP is one of {@code <=
 * >= < > ==}. The second form compares with a factor times another policy's figure (the same
 * metric unless named). A check that starts with {@code median} judges the median of the runs
 * (seeds and onset shifts): of the figure, or, for the second form, of each run's ratio to the
 * other policy's run of the same seed and shift ({@code median round_robin fault-errors <= 0.05 x
 * round_robin@no-ejection}: half the runs or more cut the errors at least twentyfold); one that
 * starts with {@code mean} judges the runs' mean even where each run is judged (a total over many
 * runs of a figure too small for one run to say much, a handful of errors).
 */
@Experimental
public record Check(
    String text, String subject, Metric metric, Op op, double number, String otherPolicy, Metric otherMetric, boolean median,
    boolean mean) {

  /**
   * A check of the runs' mean, or of each run (see {@link Scenario.Sweep#judgeEachRun()}), not of
   * the median run.
   *
   * @param text the check as written
   * @param subject a policy, or {@code every}
   * @param metric the figure checked
   * @param op how it compares with its bound
   * @param number the bound, or the factor of the other policy's figure
   * @param otherPolicy the policy compared with, or null
   * @param otherMetric the other policy's figure, or null
   */
  public Check(String text, String subject, Metric metric, Op op, double number, String otherPolicy, Metric otherMetric) {
    this(text, subject, metric, op, number, otherPolicy, otherMetric, false, false);
  }

  /** The word that makes a check judge the median run. */
  static final String MEDIAN = "median";
  /** The word that makes a check judge the runs' mean even where each run is judged. */
  static final String MEAN = "mean";

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

  static final String GRAMMAR = "[median|mean] POLICY|every METRIC <=|>=|<|>|== NUMBER [x POLICY [METRIC]]";

  /**
   * Parses a check; {@code policies} are the names a check may use.
   *
   * @throws IllegalArgumentException naming the part that is wrong and what was expected
   */
  static Check parse(String text, List<String> policies) {
    String[] all = text.trim().split("\\s+");
    boolean median = all[0].equals(MEDIAN);
    boolean mean = all[0].equals(MEAN);
    String[] words = median || mean ? java.util.Arrays.copyOfRange(all, 1, all.length) : all;
    if (words.length != 4 && words.length != 6 && words.length != 7) {
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
      return new Check(text.trim(), subject, metric, op, number, null, null, median, mean);
    }
    if (!words[4].equals("x")) {
      throw new IllegalArgumentException("'" + text + "': '" + words[4] + "' (expected: x, as in 0.5 x round_robin)");
    }
    String other = words[5];
    if (!policies.contains(other)) {
      throw new IllegalArgumentException("'" + text + "': policy '" + other + "' (expected: one of " + String.join(", ", policies) + ")");
    }
    Metric otherMetric = words.length == 7 ? metric(text, words[6]) : metric;
    return new Check(text.trim(), subject, metric, op, number, other, otherMetric, median, mean);
  }

  private static Metric metric(String text, String key) {
    Metric metric = Metric.byKey(key);
    if (metric == null) {
      throw new IllegalArgumentException("'" + text + "': metric '" + key + "' (expected: one of " + String.join(", ", Metric.keys()) + ")");
    }
    return metric;
  }

  /**
   * How one check came out for one policy: on the runs' mean, or over several runs, when {@code
   * runs} is above 1: then {@code value}, {@code otherValue} and {@code bound} are the worst run's
   * (the one nearest to failing, or furthest past), {@code held} says on how many runs the check
   * held, {@code medianValue} is the median figure (the median ratio for a comparison) and {@code
   * worstRun} names the worst run ("seed 4, onset +6s").
   */
  public record Result(Check check, String policy, double value, double otherValue, double bound, Outcome outcome,
      int runs, int held, double medianValue, String worstRun) {

    /**
     * One comparison on the runs' mean.
     *
     * @param check the check
     * @param policy the policy it judged
     * @param value the measured figure
     * @param otherValue the other policy's figure, or NaN
     * @param bound what the figure was held to
     * @param outcome how it came out
     */
    public Result(Check check, String policy, double value, double otherValue, double bound, Outcome outcome) {
      this(check, policy, value, otherValue, bound, outcome, 1, outcome == Outcome.HOLDS ? 1 : 0, Double.NaN, "");
    }

    /**
     * The measured figure next to what it was held to, and over several runs the worst and the
     * median.
     *
     * @return e.g. {@code weighted_round_robin cpu max/min 1.44 <= 0.5 x 3.31}
     */
    public String describe() {
      Check c = check;
      if (c.median) {
        StringBuilder text = new StringBuilder("median of ").append(runs).append(runs == 1 ? " run: " : " runs: ").append(policy)
            .append(' ').append(c.metric.label());
        if (c.otherPolicy != null) {
          text.append(" over ").append(c.otherPolicy).append("'s").append(c.otherMetric == c.metric ? "" : " " + c.otherMetric.label());
        }
        text.append(' ').append(c.otherPolicy != null ? plain2(medianValue) : c.metric.format(medianValue));
        if (outcome == Outcome.NOT_JUDGED) {
          return text.append(" (not judged: no value)").toString();
        }
        return text.append(' ').append(c.op).append(' ').append(c.otherPolicy != null ? plain(c.number) : c.metric.format(c.number))
            .toString();
      }
      StringBuilder text = new StringBuilder(c.mean ? "mean of the runs: " : "").append(policy).append(' ')
          .append(c.metric.label()).append(' ').append(c.metric.format(value));
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
      }
      if (runs > 1) {
        text.append(" (worst of ").append(runs).append(" runs, ").append(worstRun).append("; held on ").append(held)
            .append("; median ").append(c.otherPolicy != null ? "ratio " + plain2(medianValue) : c.metric.format(medianValue))
            .append(')');
      }
      return text.toString();
    }
  }

  private static String plain2(double number) {
    return Double.isNaN(number) ? "-" : Double.isInfinite(number) ? "inf" : String.format(Locale.ROOT, "%.3f", number);
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

  /**
   * Evaluates the check on each run: {@code runs} holds, per policy (in the order of {@code
   * names}), the summary of each run, the same seed and onset at the same index; {@code labels}
   * names each index. A median check judges the median; any other holds when it holds on every run.
   */
  List<Result> evaluateRuns(List<String> names, List<List<RunResult.Summary>> runs, List<String> labels) {
    List<Result> results = new ArrayList<>();
    List<String> subjects = subject.equals(EVERY) ? names : List.of(subject);
    for (String policy : subjects) {
      int i = names.indexOf(policy);
      int j = otherPolicy == null ? -1 : names.indexOf(otherPolicy);
      int count = i < 0 ? 0 : runs.get(i).size();
      if (j >= 0) {
        count = Math.min(count, runs.get(j).size());
      }
      if (i < 0 || (otherPolicy != null && j < 0) || count == 0) {
        results.add(new Result(this, policy, Double.NaN, Double.NaN, Double.NaN, Outcome.NOT_JUDGED, 0, 0, Double.NaN, ""));
        continue;
      }
      double[] values = new double[count];
      double[] others = new double[count];
      double[] stats = new double[count];
      int held = 0;
      int worst = -1;
      double worstMargin = Double.NEGATIVE_INFINITY;
      boolean unjudged = false;
      for (int k = 0; k < count; k++) {
        values[k] = metric.of(runs.get(i).get(k));
        others[k] = j < 0 ? Double.NaN : otherMetric.of(runs.get(j).get(k));
        double bound = j < 0 ? number : number * others[k];
        stats[k] = j < 0 ? values[k] : ratio(values[k], others[k]);
        if (Double.isNaN(values[k]) || Double.isNaN(bound)) {
          unjudged = true;
          continue;
        }
        held += op.test(values[k], bound) ? 1 : 0;
        double margin = margin(values[k], bound);
        if (worst < 0 || margin > worstMargin) {
          worst = k;
          worstMargin = margin;
        }
      }
      double[] sorted = java.util.Arrays.stream(stats).filter(v -> !Double.isNaN(v)).sorted().toArray();
      double median = sorted.length == 0 ? Double.NaN
          : sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
      Outcome outcome;
      if (this.median) {
        outcome = Double.isNaN(median) ? Outcome.NOT_JUDGED : op.test(median, number) ? Outcome.HOLDS : Outcome.FAILS;
      } else {
        outcome = held < count && worst >= 0 ? Outcome.FAILS : unjudged || worst < 0 ? Outcome.NOT_JUDGED : Outcome.HOLDS;
      }
      int w = Math.max(worst, 0);
      double bound = j < 0 ? number : number * others[w];
      results.add(new Result(this, policy, values[w], others[w], bound, outcome, count, held, median,
          worst < 0 ? "" : labels.get(worst)));
    }
    return results;
  }

  /** A run's figure over the other's: 0 when both are 0, infinite when only the other is. */
  private static double ratio(double value, double other) {
    if (Double.isNaN(value) || Double.isNaN(other)) {
      return Double.NaN;
    }
    if (other == 0) {
      return value == 0 ? 0 : Double.POSITIVE_INFINITY;
    }
    return value / other;
  }

  /** How far a figure is past its bound, in the direction that fails: larger is worse. */
  private double margin(double value, double bound) {
    double past = switch (op) {
      case LE, LT -> value - bound;
      case GE, GT -> bound - value;
      case EQ -> Math.abs(value - bound);
    };
    return bound == 0 || Double.isInfinite(bound) ? past : past / Math.abs(bound);
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
        bound = number * other;
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
