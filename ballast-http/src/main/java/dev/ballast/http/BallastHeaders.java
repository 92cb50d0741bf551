package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.overload.Criticality;

/**
 * Ballast's own HTTP headers, the same vocabulary as ballast-grpc's metadata, and their grammars.
 *
 * <table>
 *   <caption>Headers</caption>
 *   <tr><th>header</th><th>on</th><th>grammar</th><th>meaning</th></tr>
 *   <tr><td>{@value #CRITICALITY}</td><td>request</td><td>{@code critical-plus | critical |
 *       sheddable-plus | sheddable}</td><td>what the request is worth when capacity is short
 *       (absent: {@code critical})</td></tr>
 *   <tr><td>{@value #TIMEOUT}</td><td>request</td><td>1 to 8 digits and a unit, {@code H M S m u
 *       n} (gRPC's {@code grpc-timeout})</td><td>the time the caller still waits</td></tr>
 *   <tr><td>{@value #PREVIOUS_ATTEMPTS}</td><td>request</td><td>digits</td><td>how many attempts
 *       of this request went before (absent on the first)</td></tr>
 *   <tr><td>{@value #OVERLOAD}</td><td>response</td><td>{@code shed | dont-retry}</td><td>an
 *       overload answer, not a failure: shed unrun, another backend may take it; or a service
 *       behind shed it and nobody should retry it again</td></tr>
 *   <tr><td>{@value #DEADLINE}</td><td>response</td><td>{@code exceeded}</td><td>not run: too
 *       little of the deadline was left</td></tr>
 *   <tr><td>{@value #LAME_DUCK}</td><td>response</td><td>{@code 1}</td><td>the backend is
 *       draining: send new requests elsewhere (with {@code Connection: close})</td></tr>
 *   <tr><td>{@value #PROBE}</td><td>response to a probe ({@code GET} {@value #PROBE_PATH})</td>
 *       <td>{@code requests_in_flight=}digits{@code , latency_estimate_nanos=}digits, in any
 *       order, other keys ignored</td><td>the backend's requests in flight and its latency
 *       estimate for a request arriving at that load ({@code prequal_probing}'s probe, the
 *       fields of gRPC's {@code ballast.probe.v1.ProbeResponse})</td></tr>
 * </table>
 *
 * <p>The readers here throw {@link MalformedHeaderException} for a value outside the grammar; the
 * transports ignore such a header (taking the default) and count it.
 */
@Experimental
public final class BallastHeaders {
  /** The request's criticality: {@value}. */
  public static final String CRITICALITY = "ballast-criticality";
  /** The time the caller still waits, in {@code grpc-timeout}'s grammar: {@value}. */
  public static final String TIMEOUT = "ballast-timeout";
  /** How many attempts of the request went before this one: {@value}. */
  public static final String PREVIOUS_ATTEMPTS = "ballast-previous-attempts";
  /** An overload answer's mark: {@value}, with {@link #SHED} or {@link #DONT_RETRY}. */
  public static final String OVERLOAD = "ballast-overload";
  /** {@value}: shed without running; another backend may take the request. */
  public static final String SHED = "shed";
  /** {@value}: a service behind shed it and was retried there already; retry nowhere. */
  public static final String DONT_RETRY = "dont-retry";
  /** A refusal for the deadline's sake: {@value}, with {@link #EXCEEDED}. */
  public static final String DEADLINE = "ballast-deadline";
  /** {@value}: too little of the deadline was left to start the work. */
  public static final String EXCEEDED = "exceeded";
  /** The lame duck signal: {@value}, with {@link #LAME_DUCK_VALUE}. */
  public static final String LAME_DUCK = "ballast-lame-duck";
  /** The lame duck signal's value: {@value}. */
  public static final String LAME_DUCK_VALUE = "1";
  /** A probe's answer: {@value}, written by {@link #writeProbe} and read by {@link #readProbe}. */
  public static final String PROBE = "ballast-probe";
  /** Where a backend answers probes unless told otherwise: {@value}. */
  public static final String PROBE_PATH = "/ballast/probe";
  /** The longest {@value #PROBE} value read: a longer one is malformed, whatever it holds. */
  public static final int MAX_PROBE_LENGTH = 256;
  private static final String IN_FLIGHT_KEY = "requests_in_flight";
  private static final String LATENCY_KEY = "latency_estimate_nanos";
  private static final String PROBE_GRAMMAR =
      "requests_in_flight=DIGITS, latency_estimate_nanos=DIGITS, at most " + MAX_PROBE_LENGTH + " characters";
  /** HTTP's own: how many seconds to wait before asking again, on a don't-retry answer: {@value}. */
  public static final String RETRY_AFTER = "retry-after";

  /** The longest timeout the grammar can say: 99,999,999 hours. */
  private static final long MAX_DIGITS_VALUE = 99_999_999L;
  private static final char[] UNITS = {'n', 'u', 'm', 'S', 'M', 'H'};
  private static final long[] UNIT_NANOS = {1L, 1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L};

  private BallastHeaders() {}

  /**
   * A criticality as {@value #CRITICALITY} carries it.
   *
   * @param value the header's value
   * @return the criticality
   * @throws MalformedHeaderException if it names none
   */
  public static Criticality readCriticality(String value) {
    try {
      return Criticality.parse(value);
    } catch (IllegalArgumentException e) {
      throw new MalformedHeaderException(CRITICALITY, value, "critical-plus, critical, sheddable-plus or sheddable");
    }
  }

  /**
   * A timeout as {@value #TIMEOUT} carries it: the finest unit that says it in at most 8 digits,
   * rounded down, but at least 1 of the finest unit, so that time left is never written as none.
   *
   * @param nanos the time left, more than 0
   * @return the header's value
   * @throws IllegalArgumentException for 0 or less
   */
  public static String writeTimeout(long nanos) {
    if (nanos <= 0) {
      throw new IllegalArgumentException("timeout: " + nanos + " ns (expected: more than 0)");
    }
    for (int i = 0; i < UNITS.length; i++) {
      long value = nanos / UNIT_NANOS[i];
      if (value <= MAX_DIGITS_VALUE) {
        return Math.max(1, value) + String.valueOf(UNITS[i]);
      }
    }
    return MAX_DIGITS_VALUE + "H";
  }

  /**
   * A timeout from {@value #TIMEOUT}'s value: 1 to 8 digits and one unit letter ({@code H} hours,
   * {@code M} minutes, {@code S} seconds, {@code m} milliseconds, {@code u} microseconds, {@code n}
   * nanoseconds).
   *
   * @param value the header's value
   * @return the timeout in nanoseconds, saturated at {@link Long#MAX_VALUE}
   * @throws MalformedHeaderException for any other value
   */
  public static long readTimeout(String value) {
    if (value == null || value.length() < 2 || value.length() > 9) {
      throw badTimeout(value);
    }
    char unit = value.charAt(value.length() - 1);
    int index = -1;
    for (int i = 0; i < UNITS.length; i++) {
      if (UNITS[i] == unit) {
        index = i;
      }
    }
    if (index < 0) {
      throw badTimeout(value);
    }
    long digits = 0;
    for (int i = 0; i < value.length() - 1; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw badTimeout(value);
      }
      digits = digits * 10 + (c - '0');
    }
    long unitNanos = UNIT_NANOS[index];
    return digits > Long.MAX_VALUE / unitNanos ? Long.MAX_VALUE : digits * unitNanos;
  }

  /**
   * The attempts that went before, from {@value #PREVIOUS_ATTEMPTS}.
   *
   * @param value the header's value
   * @return the count, 0 to 999
   * @throws MalformedHeaderException for anything but 1 to 3 digits
   */
  public static int readPreviousAttempts(String value) {
    if (value == null || value.isEmpty() || value.length() > 3) {
      throw new MalformedHeaderException(PREVIOUS_ATTEMPTS, value, "1 to 3 digits");
    }
    int count = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw new MalformedHeaderException(PREVIOUS_ATTEMPTS, value, "1 to 3 digits");
      }
      count = count * 10 + (c - '0');
    }
    return count;
  }

  /**
   * A probe's answer as {@value #PROBE} carries it.
   *
   * @param requestsInFlight the backend's requests in flight, 0 or more
   * @param latencyEstimateNanos its latency estimate at that load, 0 or more
   * @return the header's value
   * @throws IllegalArgumentException for a negative value
   */
  public static String writeProbe(int requestsInFlight, long latencyEstimateNanos) {
    if (requestsInFlight < 0 || latencyEstimateNanos < 0) {
      throw new IllegalArgumentException("probe: " + requestsInFlight + " in flight, " + latencyEstimateNanos
          + " ns (expected: 0 or more of each)");
    }
    return IN_FLIGHT_KEY + "=" + requestsInFlight + ", " + LATENCY_KEY + "=" + latencyEstimateNanos;
  }

  /**
   * A probe's answer from {@value #PROBE}'s value: both keys once each, in any order, separated by
   * commas with optional spaces; keys of a later version are skipped. A count beyond what Java's
   * {@code int} holds reads as the largest, and a latency beyond {@code long} likewise: a backend
   * that claims that much load is avoided, not believed idle.
   *
   * @param value the header's value
   * @return the answer
   * @throws MalformedHeaderException for a value outside the grammar, a key given twice, a
   *     missing key, or more than {@value #MAX_PROBE_LENGTH} characters
   */
  public static ProbeAnswer readProbe(String value) {
    if (value == null || value.length() > MAX_PROBE_LENGTH) {
      throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR);
    }
    long inFlight = -1;
    long latency = -1;
    int at = 0;
    int n = value.length();
    while (at <= n) {
      int end = value.indexOf(',', at);
      if (end < 0) {
        end = n;
      }
      String field = value.substring(at, end).trim();
      int equals = field.indexOf('=');
      if (equals <= 0) {
        throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR);
      }
      String key = field.substring(0, equals).trim();
      long number = saturatedDigits(field.substring(equals + 1).trim(), value);
      if (key.equals(IN_FLIGHT_KEY)) {
        if (inFlight >= 0) {
          throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR + ", each key once");
        }
        inFlight = number;
      } else if (key.equals(LATENCY_KEY)) {
        if (latency >= 0) {
          throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR + ", each key once");
        }
        latency = number;
      }
      at = end + 1;
    }
    if (inFlight < 0 || latency < 0) {
      throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR + ", both keys");
    }
    return new ProbeAnswer((int) Math.min(Integer.MAX_VALUE, inFlight), latency);
  }

  /** Digits read as a number, saturated at {@link Long#MAX_VALUE}. */
  private static long saturatedDigits(String digits, String value) {
    if (digits.isEmpty()) {
      throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR);
    }
    long number = 0;
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c < '0' || c > '9') {
        throw new MalformedHeaderException(PROBE, value, PROBE_GRAMMAR);
      }
      number = number > (Long.MAX_VALUE - (c - '0')) / 10 ? Long.MAX_VALUE : number * 10 + (c - '0');
    }
    return number;
  }

  /**
   * A backend's answer to a probe.
   *
   * @param requestsInFlight its requests in flight when it answered
   * @param latencyEstimateNanos its latency estimate for a request arriving at that load
   */
  public record ProbeAnswer(int requestsInFlight, long latencyEstimateNanos) {}

  private static MalformedHeaderException badTimeout(String value) {
    return new MalformedHeaderException(TIMEOUT, value, "1 to 8 digits and a unit, H, M, S, m, u or n, as in 250m");
  }
}
