package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scenario sets out to show and how its runs are judged: the statement, where it comes
 * from, the checks it stands on, the figure that decides the best policy, and which of the
 * chapter's figures its charts reproduce.
 *
 * @param text the statement, quoted in the report beside what was measured
 * @param checks all must hold for the claim to hold; none: the scenario is shown, not judged
 * @param bestBy the metric that decides the best policy; null: none is named
 * @param bestAmong a condition a run must meet to be ranked ({@code every METRIC OP NUMBER}, e.g.
 *     cross-zone traffic within the minimum plus 5 points), for claims whose best is the best by
 *     one figure among those that keep another; null: every run is ranked
 * @param figures the chapter's figures the scenario reproduces, e.g. {@code 20-1}; charts of
 *     other scenarios are not captioned with them
 * @param goodputCurve the name of a goodput-against-offered-load chart this scenario is a point
 *     of; empty: none
 * @param situation the situation whose recommendation the claim supports (see {@link
 *     Recommendation#SITUATIONS}); empty: none
 */
@Experimental
public record Claim(Source source, String text, List<Check> checks, Metric bestBy, Check bestAmong, List<String> figures,
    String goodputCurve, String situation) {
  /**
   * Copies the lists.
   *
   * @param source where the claim comes from
   * @param text the claim in words
   * @param checks what must hold for it
   * @param bestBy the figure the best run is ranked by, or null
   * @param bestAmong the check a run must pass to be ranked, or null
   * @param figures the chapter's figures the scenario reproduces
   * @param goodputCurve the goodput chart this scenario is a point of, or empty
   * @param situation the situation whose recommendation the claim supports, or empty
   */
  public Claim {
    checks = List.copyOf(checks);
    figures = List.copyOf(figures);
  }

  /** Where a claim comes from. */
  public enum Source {
    /** No source: a scenario without a claim. */
    NONE("", ""),
    /** The SRE book's chapter "Load Balancing in the Datacenter". */
    CHAPTER("chapter", "SRE book, \"Load Balancing in the Datacenter\""),
    /** The SRE book's chapter "Handling Overload". */
    SRE_BOOK("sre-book", "SRE book, \"Handling Overload\""),
    /** The talk on high availability for microservices, Ballast's source document 004 (docs/overload.md). */
    TALK("talk", "talk on high availability for microservices (source 004)"),
    /** Prequal, NSDI 2024. */
    PREQUAL("prequal", "Prequal (NSDI 2024)"),
    /** A claim of Ballast's own design. */
    BALLAST("ballast", "Ballast's own");

    private final String key;
    private final String description;

    Source(String key, String description) {
      this.key = key;
      this.description = description;
    }

    /**
     * The name a scenario file uses.
     *
     * @return the key, such as {@code chapter}; empty for {@link #NONE}
     */
    public String key() {
      return key;
    }

    /**
     * The source in words, for reports.
     *
     * @return the description; empty for {@link #NONE}
     */
    public String description() {
      return description;
    }

    static Source byKey(String key) {
      for (Source source : values()) {
        if (source.key.equals(key)) {
          return source;
        }
      }
      return null;
    }

    static List<String> keys() {
      List<String> keys = new ArrayList<>();
      for (Source source : values()) {
        if (source != NONE) {
          keys.add(source.key);
        }
      }
      return keys;
    }
  }

  /** The figures the chapter has, that a scenario may say it reproduces. */
  static final List<String> CHAPTER_FIGURES = List.of("20-1", "20-2", "20-3", "20-4", "20-5", "20-6");

  /**
   * Whether the scenario reproduces one of the chapter's figures.
   *
   * @param number the figure's number, e.g. {@code 20-2}
   * @return true when the claim names it
   */
  public boolean reproduces(String number) {
    return figures.contains(number);
  }
}
