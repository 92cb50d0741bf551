package dev.ballast.grpc;

import dev.ballast.overload.Criticality;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Whose {@code ballast-criticality} header a server believes: the highest criticality each caller
 * may claim. A call that claims more than its caller may is downgraded to what it may, counted
 * ({@link BallastServer#criticalityDowngrades()}) and served like any call of that criticality:
 * never refused for the claim. The caller is the identity its TLS client certificate proves
 * ({@link dev.ballast.identity.CertificateIdentity}); a caller without one (no mutual TLS) matches
 * no pattern.
 *
 * <pre>{@code
 * CriticalityTrust.all()                                          // today's default: every caller's header
 * CriticalityTrust.identitiesMatching("spiffe://prod/.*")         // others: at most CRITICAL, the default
 * CriticalityTrust.capped(Map.of("spiffe://prod/ns/batch/.*", Criticality.SHEDDABLE_PLUS,
 *                                "spiffe://prod/.*", Criticality.CRITICAL_PLUS), Criticality.CRITICAL)
 * }</pre>
 */
public final class CriticalityTrust {
  private static final CriticalityTrust ALL = new CriticalityTrust(List.of(), Criticality.CRITICAL_PLUS);

  private record Rule(Pattern identities, Criticality cap) {}

  private final List<Rule> rules;
  private final Criticality otherwise;

  private CriticalityTrust(List<Rule> rules, Criticality otherwise) {
    this.rules = rules;
    this.otherwise = otherwise;
  }

  /**
   * Every caller's header, whoever it is: what a server does without a policy.
   *
   * @return the policy
   */
  public static CriticalityTrust all() {
    return ALL;
  }

  /**
   * The header of callers whose certificate identity matches {@code regex} (the whole identity);
   * every other caller at most {@link Criticality#DEFAULT}, what a call without the header gets.
   *
   * @param regex the pattern trusted callers' identities match
   * @return the policy
   * @throws IllegalArgumentException naming the pattern if it is not a regular expression
   */
  public static CriticalityTrust identitiesMatching(String regex) {
    return capped(Map.of(regex, Criticality.CRITICAL_PLUS), Criticality.DEFAULT);
  }

  /**
   * A cap per caller: the first pattern (in the map's order; give a {@link LinkedHashMap} when
   * patterns overlap) that matches the whole certificate identity gives the highest criticality
   * the caller may claim; a caller that matches none, or has no certificate, may claim at most
   * {@code otherwise}.
   *
   * @param caps pattern to the highest criticality a caller whose identity matches may claim
   * @param otherwise the highest criticality any other caller may claim
   * @return the policy
   * @throws IllegalArgumentException naming the pattern if one is not a regular expression
   */
  public static CriticalityTrust capped(Map<String, Criticality> caps, Criticality otherwise) {
    List<Rule> rules = new ArrayList<>();
    for (Map.Entry<String, Criticality> cap : caps.entrySet()) {
      String regex = Objects.requireNonNull(cap.getKey(), "pattern");
      try {
        rules.add(new Rule(Pattern.compile(regex), Objects.requireNonNull(cap.getValue(), "cap")));
      } catch (java.util.regex.PatternSyntaxException e) {
        throw new IllegalArgumentException("criticality trust: pattern " + dev.ballast.internal.Ranges.quote(regex)
            + " (expected: a regular expression: " + e.getDescription() + ")", e);
      }
    }
    return new CriticalityTrust(List.copyOf(rules), Objects.requireNonNull(otherwise, "otherwise"));
  }

  /** Whether every caller's claim stands, so that the server need not look up who is calling. */
  boolean trustsAll() {
    return rules.isEmpty() && otherwise == Criticality.CRITICAL_PLUS;
  }

  /** The highest criticality a caller of this identity (null: none proved) may claim. */
  Criticality cap(String identity) {
    if (identity != null) {
      for (Rule rule : rules) {
        if (rule.identities().matcher(identity).matches()) {
          return rule.cap();
        }
      }
    }
    return otherwise;
  }

  /** The claim, or the caller's cap if the claim is above it. */
  Criticality allowed(String identity, Criticality claimed) {
    Criticality cap = cap(identity);
    return cap.isLowerThan(claimed) ? cap : claimed;
  }
}
