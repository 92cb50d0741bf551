package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Settings of {@code consistent_hash}: a hash ring over every backend, a request's key mapped to
 * the first backend clockwise from the key's hash, and a bound on each backend's load relative to
 * the mean (consistent hashing with bounded loads: Mirrokni, Thorup and Zadimoghaddam). Each
 * setting is declared once below, with its range, default and meaning, and every front end reads
 * it through {@link #SETTINGS}.
 *
 * @param balanceFactor {@setting BALANCE_FACTOR} A backend over the bound passes the request on to
 *     the next backend on the ring. Lower spreads a hot key sooner and keeps fewer keys at home;
 *     Envoy's {@code hash_balance_factor} and HAProxy's {@code hash-balance-factor} are this
 *     factor in percent.
 * @param bound {@setting BOUND}
 * @param pointsPerBackend {@setting POINTS_PER_BACKEND} Each backend owns about {@code 1 / n} of
 *     the ring only with enough points: with 160 (libketama's number), the backend that owns the
 *     most of 100 owns about 1.2 times the mean; with gRPC's ring of 1,024 points, about 2 times.
 * @param maxRingSize {@setting MAX_RING_SIZE} It bounds the ring's memory (12 bytes a point) for
 *     very large services; above {@code maxRingSize / pointsPerBackend} backends each gets fewer
 *     points, at least one.
 * @param loadReportExpiration {@setting LOAD_REPORT_EXPIRATION} A backend whose report is older is
 *     bounded by its requests in flight alone.
 * @param requestHashHeader {@setting REQUEST_HASH_HEADER} Header names are case-insensitive: the
 *     record keeps it in lower case. Several values of the header are joined with {@code ","}, as
 *     gRFC A76 says; a request without it is picked as one without a key. The simulator's requests
 *     carry their key themselves and ignore it.
 */
@Experimental("consistent hashing is new; its settings may change as its first users try it")
public record ConsistentHashConfig(
    double balanceFactor,
    Bound bound,
    int pointsPerBackend,
    int maxRingSize,
    Duration loadReportExpiration,
    String requestHashHeader) {
  /** The default of {@link #BALANCE_FACTOR}: {@value}. */
  public static final double DEFAULT_BALANCE_FACTOR = 1.25;
  /** The default of {@link #BOUND}. */
  public static final Bound DEFAULT_BOUND = Bound.UTILIZATION;
  /** The default of {@link #POINTS_PER_BACKEND}: {@value}. */
  public static final int DEFAULT_POINTS_PER_BACKEND = 160;
  /** The default of {@link #MAX_RING_SIZE}: {@value}. */
  public static final int DEFAULT_MAX_RING_SIZE = 262_144;
  /** The default of {@link #LOAD_REPORT_EXPIRATION}. */
  public static final Duration DEFAULT_LOAD_REPORT_EXPIRATION = Duration.ofSeconds(10);
  /** The default of {@link #REQUEST_HASH_HEADER}: none. */
  public static final String DEFAULT_REQUEST_HASH_HEADER = "";

  /** What a backend's load is, for the bound. */
  public enum Bound {
    /**
     * Requests in flight from this client: a backend takes a request while it has fewer than
     * {@code ceil(balanceFactor x (requests in flight on every backend + 1) / backends)}, Envoy's
     * bound. Exact and immediate, but local: with many light clients each sees so few requests that
     * the bound seldom binds.
     */
    IN_FLIGHT,
    /**
     * Where backends send load reports, their utilization: a backend whose reported utilization is
     * above {@code balanceFactor} times the mean of the reporting backends' passes on a share of
     * the requests that reach it, which the balancer's refresh adjusts, report by report, until it
     * is at the bound. Every client reads the same reports, so this bounds the fleet's load, not
     * only one client's, and a slow machine's share follows its capacity. A backend without a
     * fresh report (and every backend while fewer than two report) is held by the in-flight bound.
     */
    UTILIZATION,
    /** No bound: a key always goes to its backend while it takes requests, as gRPC's {@code ring_hash} does. */
    NONE
  }

  // A header name: what gRPC's metadata keys allow (the HTTP token characters it keeps), never a
  // binary header, which carries bytes rather than text (gRFC A76 rejects one).
  private static final Pattern HEADER =
      Pattern.compile("|(?![0-9A-Za-z_.-]*-[bB][iI][nN]$)[0-9A-Za-z_.-]{1,256}");

  /** {@setting} */
  public static final Setting<Double> BALANCE_FACTOR =
      Setting.number("balanceFactor", DEFAULT_BALANCE_FACTOR, 1.0, 10.0,
          "no backend takes more than this times the mean load");
  /** {@setting} */
  public static final Setting<Bound> BOUND =
      Setting.choice("bound", DEFAULT_BOUND, "what a backend's load is: requests in flight, reported utilization, or no bound");
  /** {@setting} */
  public static final Setting<Integer> POINTS_PER_BACKEND =
      Setting.wholeNumber("pointsPerBackend", DEFAULT_POINTS_PER_BACKEND, 1, 10_000,
          "the points each backend has on the hash ring");
  /** {@setting} */
  public static final Setting<Integer> MAX_RING_SIZE =
      Setting.wholeNumber("maxRingSize", DEFAULT_MAX_RING_SIZE, 1, 8_388_608, "the most points the ring has");
  /** {@setting} */
  public static final Setting<Duration> LOAD_REPORT_EXPIRATION =
      Setting.duration("loadReportExpiration", DEFAULT_LOAD_REPORT_EXPIRATION, Duration.ofMillis(1), Duration.ofDays(1),
          "a reported utilization older than this is ignored");
  /** {@setting} */
  public static final Setting<String> REQUEST_HASH_HEADER =
      Setting.text("requestHashHeader", DEFAULT_REQUEST_HASH_HEADER, HEADER,
          "a header name of letters, digits, '-', '_' and '.', not ending in -bin, or \"\" for none", "x-user-id",
          "the request header whose value is the request's key, for transports that read one");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<ConsistentHashConfig> SETTINGS =
      Settings.declare("consistent_hash", ConsistentHashConfig::builder, Builder::build)
          .with(BALANCE_FACTOR, Builder::balanceFactor, ConsistentHashConfig::balanceFactor)
          .with(BOUND, Builder::bound, ConsistentHashConfig::bound)
          .with(POINTS_PER_BACKEND, Builder::pointsPerBackend, ConsistentHashConfig::pointsPerBackend)
          .with(MAX_RING_SIZE, Builder::maxRingSize, ConsistentHashConfig::maxRingSize)
          .with(LOAD_REPORT_EXPIRATION, Builder::loadReportExpiration, ConsistentHashConfig::loadReportExpiration)
          .with(REQUEST_HASH_HEADER, Builder::requestHashHeader, ConsistentHashConfig::requestHashHeader)
          .done();

  /**
   * Checks every setting; keeps the header's name in lower case.
   *
   * @param balanceFactor {@setting BALANCE_FACTOR}
   * @param bound {@setting BOUND}
   * @param pointsPerBackend {@setting POINTS_PER_BACKEND}
   * @param maxRingSize {@setting MAX_RING_SIZE}
   * @param loadReportExpiration {@setting LOAD_REPORT_EXPIRATION}
   * @param requestHashHeader {@setting REQUEST_HASH_HEADER}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range
   *     or null
   */
  public ConsistentHashConfig {
    BALANCE_FACTOR.check(balanceFactor);
    BOUND.check(bound);
    POINTS_PER_BACKEND.check(pointsPerBackend);
    MAX_RING_SIZE.check(maxRingSize);
    LOAD_REPORT_EXPIRATION.check(loadReportExpiration);
    requestHashHeader = REQUEST_HASH_HEADER.check(requestHashHeader).toLowerCase(Locale.ROOT);
  }

  /**
   * Every setting at its default.
   *
   * @return the config
   */
  public static ConsistentHashConfig defaults() {
    return builder().build();
  }

  /**
   * A builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder that starts from this config's values.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder()
        .balanceFactor(balanceFactor)
        .bound(bound)
        .pointsPerBackend(pointsPerBackend)
        .maxRingSize(maxRingSize)
        .loadReportExpiration(loadReportExpiration)
        .requestHashHeader(requestHashHeader);
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private double balanceFactor = DEFAULT_BALANCE_FACTOR;
    private Bound bound = DEFAULT_BOUND;
    private int pointsPerBackend = DEFAULT_POINTS_PER_BACKEND;
    private int maxRingSize = DEFAULT_MAX_RING_SIZE;
    private Duration loadReportExpiration = DEFAULT_LOAD_REPORT_EXPIRATION;
    private String requestHashHeader = DEFAULT_REQUEST_HASH_HEADER;

    private Builder() {}

    /**
     * {@setting BALANCE_FACTOR}
     *
     * @param factor the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder balanceFactor(double factor) {
      this.balanceFactor = factor;
      return this;
    }

    /**
     * {@setting BOUND}
     *
     * @param bound the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder bound(Bound bound) {
      this.bound = bound;
      return this;
    }

    /**
     * {@setting POINTS_PER_BACKEND}
     *
     * @param points the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder pointsPerBackend(int points) {
      this.pointsPerBackend = points;
      return this;
    }

    /**
     * {@setting MAX_RING_SIZE}
     *
     * @param points the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder maxRingSize(int points) {
      this.maxRingSize = points;
      return this;
    }

    /**
     * {@setting LOAD_REPORT_EXPIRATION}
     *
     * @param expiration the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder loadReportExpiration(Duration expiration) {
      this.loadReportExpiration = expiration;
      return this;
    }

    /**
     * {@setting REQUEST_HASH_HEADER}
     *
     * @param header the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder requestHashHeader(String header) {
      this.requestHashHeader = header;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range, in the message shape {@code
     *     "name: value (expected: ...)"}
     */
    public ConsistentHashConfig build() {
      return new ConsistentHashConfig(
          balanceFactor, bound, pointsPerBackend, maxRingSize, loadReportExpiration, requestHashHeader);
    }
  }
}
