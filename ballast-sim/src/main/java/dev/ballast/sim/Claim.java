package dev.ballast.sim;

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
public record Claim(Source source, String text, List<Check> checks, Metric bestBy, Check bestAmong, List<String> figures,
    String goodputCurve, String situation) {
  public Claim {
    checks = List.copyOf(checks);
    figures = List.copyOf(figures);
  }

  /** Where a claim comes from. */
  public enum Source {
    NONE("", ""),
    CHAPTER("chapter", "SRE book, \"Load Balancing in the Datacenter\""),
    SRE_BOOK("sre-book", "SRE book, \"Handling Overload\""),
    /** The talk on high availability for microservices, Ballast's source document 004 (docs/overload.md). */
    TALK("talk", "talk on high availability for microservices (source 004)"),
    PREQUAL("prequal", "Prequal (NSDI 2024)"),
    BALLAST("ballast", "Ballast's own");

    private final String key;
    private final String description;

    Source(String key, String description) {
      this.key = key;
      this.description = description;
    }

    public String key() {
      return key;
    }

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

  /** Whether the scenario reproduces the chapter's figure {@code number} (e.g. {@code 20-2}). */
  public boolean reproduces(String number) {
    return figures.contains(number);
  }
}
