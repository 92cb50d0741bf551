package dev.ballast.overload;

import java.util.Locale;

/**
 * How much a request matters when there is not enough capacity for all of them, from the SRE
 * book's chapter on handling overload. Every part of Ballast's overload protection reads the same
 * value: the client's throttle rejects lower criticalities first, the server's limiter sheds them
 * first, and the value travels with the request to the calls it makes in turn.
 */
public enum Criticality {
  /** The most important requests; their failure hurts users badly. Shed last. */
  CRITICAL_PLUS,
  /** The default for requests from production users. */
  CRITICAL,
  /** Traffic that can take partial unavailability, such as batch work that retries later. */
  SHEDDABLE_PLUS,
  /** Traffic that can take frequent partial or full unavailability. Shed first. */
  SHEDDABLE;

  /** What a request carries when nobody set its criticality. */
  public static final Criticality DEFAULT = CRITICAL;

  private static final Criticality[] VALUES = values();

  /** All criticalities, from the most important to the least, without a copy (do not modify). */
  static Criticality[] all() {
    return VALUES;
  }

  /**
   * Whether requests of this criticality are shed before requests of {@code other}.
   *
   * @param other another criticality
   * @return true when this one is less important
   */
  public boolean isLowerThan(Criticality other) {
    return ordinal() > other.ordinal();
  }

  /**
   * The form a criticality takes in a header ({@code ballast-criticality}, on gRPC and HTTP alike):
   * its name in lower case with dashes, such as {@code sheddable-plus}. {@link #parse} reads it back.
   *
   * @return the header value
   */
  public String headerValue() {
    return switch (this) {
      case CRITICAL_PLUS -> "critical-plus";
      case CRITICAL -> "critical";
      case SHEDDABLE_PLUS -> "sheddable-plus";
      case SHEDDABLE -> "sheddable";
    };
  }

  /**
   * Reads a criticality as carried in a header or a configuration file: the constant's name, in
   * any case, with {@code -} or {@code _} between words.
   *
   * @param text the value as written; null is refused
   * @return the criticality
   * @throws IllegalArgumentException naming the value and the accepted ones
   */
  public static Criticality parse(String text) {
    if (text != null) {
      String name = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
      for (Criticality c : VALUES) {
        if (c.name().equals(name)) {
          return c;
        }
      }
    }
    throw new IllegalArgumentException(
        "criticality: " + text + " (expected: critical_plus, critical, sheddable_plus or sheddable)");
  }
}
