package dev.ballast.releasechecks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rule that ties a deliberate API break to the changelog. The API check (japicmp, configured in
 * the root pom) fails the build on any source or binary incompatible change to a published
 * module's API against the recorded baseline. A break is accepted by adding an {@code <exclude>}
 * for it between the {@code accepted-breaks} marks of that configuration; this rule then asks for a
 * line in CHANGELOG.md's Unreleased section, under {@code ### Breaking changes}, that names it in
 * backticks: {@code `Balancer`} for a class, {@code `Balancer.create`} or {@code
 * `Balancer.create(Policy)`} for a member, {@code `Balancer.Builder.zone`} for a nested class's.
 */
final class AcceptedBreaks {
  private static final Pattern EXCLUDE = Pattern.compile("<exclude>\\s*([^<]+?)\\s*</exclude>");

  private AcceptedBreaks() {}

  /** The accepted breaks: the excludes between the marks of {@code pom}'s text. */
  static List<String> accepted(String pom) {
    int begin = pom.indexOf("<!-- accepted-breaks:begin -->");
    int end = pom.indexOf("<!-- accepted-breaks:end -->");
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("pom.xml: the accepted-breaks marks are missing or out of order (expected: <!-- accepted-breaks:begin --> before <!-- accepted-breaks:end -->)");
    }
    String list = pom.substring(begin, end).replaceAll("(?s)<!--.*?-->", "");
    List<String> breaks = new ArrayList<>();
    Matcher matcher = EXCLUDE.matcher(list);
    while (matcher.find()) {
      breaks.add(matcher.group(1));
    }
    return breaks;
  }

  /**
   * How the changelog names an exclude: {@code dev.ballast.pick.Balancer$Builder#zone(java.lang.String)}
   * is {@code Balancer.Builder.zone}; a class is its simple name, nested classes joined with dots.
   */
  static String shortName(String exclude) {
    String type = exclude;
    String member = "";
    int hash = exclude.indexOf('#');
    if (hash >= 0) {
      type = exclude.substring(0, hash);
      member = exclude.substring(hash + 1);
      int paren = member.indexOf('(');
      if (paren >= 0) {
        member = member.substring(0, paren);
      }
    }
    String simple = type.substring(type.lastIndexOf('.') + 1).replace('$', '.');
    return member.isEmpty() ? simple : simple + "." + member;
  }

  /** The text of the Unreleased section's {@code ### Breaking changes}, or the empty string. */
  static String unreleasedBreakingChanges(String changelog) {
    Matcher unreleased = Pattern.compile("(?m)^## Unreleased\\s*$").matcher(changelog);
    if (!unreleased.find()) {
      return "";
    }
    String section = changelog.substring(unreleased.end());
    Matcher next = Pattern.compile("(?m)^## ").matcher(section);
    if (next.find()) {
      section = section.substring(0, next.start());
    }
    Matcher breaking = Pattern.compile("(?m)^### Breaking changes\\s*$").matcher(section);
    if (!breaking.find()) {
      return "";
    }
    String subsection = section.substring(breaking.end());
    Matcher nextHeading = Pattern.compile("(?m)^#{2,3} ").matcher(subsection);
    return nextHeading.find() ? subsection.substring(0, nextHeading.start()) : subsection;
  }

  /** What is wrong: one line per accepted break that the changelog does not name, or nothing. */
  static List<String> problems(String pom, String changelog) {
    String breaking = unreleasedBreakingChanges(changelog);
    List<String> problems = new ArrayList<>();
    for (String exclude : accepted(pom)) {
      String name = shortName(exclude);
      if (!Pattern.compile("`" + Pattern.quote(name) + "[`(]").matcher(breaking).find()) {
        problems.add("accepted API break " + exclude + ": not in CHANGELOG.md (expected: a line naming `"
            + name + "` under \"### Breaking changes\" in the \"## Unreleased\" section, saying what changed and what to do)");
      }
    }
    return problems;
  }
}
