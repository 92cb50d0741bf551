package dev.ballast.subset;

import dev.ballast.annotation.Experimental;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.util.Locale;
import java.util.Objects;

/**
 * How a client chooses its subset: the algorithm, the subset's size, the service's salt, and who
 * the client is. Each setting is declared once below, with its range, default and meaning, in
 * {@link #SETTINGS}; a front end that reads subsetting from its own configuration (Spring's
 * properties) reads it through those declarations, and the gRPC service config takes its names,
 * defaults and ranges from them.
 *
 * @param algorithm {@setting ALGORITHM} {@code auto} is {@code orthogonal_lots} for a client with
 *     an index and {@code rendezvous} for one without: the balanced algorithms need a dense index.
 * @param subsetSize {@setting SUBSET_SIZE} A service with fewer backends is used whole.
 * @param remoteSubsetSize {@setting REMOTE_SUBSET_SIZE}
 * @param salt {@setting SALT}
 * @param lotSize {@setting LOT_SIZE} Pin it before changing the subset size, so that each client
 *     gains or loses about one backend instead of the lots re-forming.
 * @param clientIndex {@setting CLIENT_INDEX}
 * @param clientCount {@setting CLIENT_COUNT} A count without an index is not read: the client is
 *     anonymous.
 */
@Experimental("subsetting's settings joined the declared tables for the Spring front end; their names may still change")
public record SubsetConfig(
    Algorithm algorithm, int subsetSize, int remoteSubsetSize, int salt, int lotSize, int clientIndex,
    int clientCount) {

  /** The subsetting algorithms, by the names front ends write. */
  public enum Algorithm {
    /** {@code orthogonal_lots} for a client with an index, {@code rendezvous} without one. */
    AUTO,
    /** {@link Subsetter#random(long)}. */
    RANDOM,
    /** {@link Subsetter#deterministic(long)}: needs a client index. */
    DETERMINISTIC,
    /** {@link Subsetter#rendezvous(long)}. */
    RENDEZVOUS,
    /** {@link Subsetter#orthogonalLots(long)}: needs a client index. */
    ORTHOGONAL_LOTS;

    /**
     * Whether the algorithm balances by a dense client index, and so needs one.
     *
     * @return true for {@code deterministic} and {@code orthogonal_lots}
     */
    public boolean needsIndex() {
      return this == DETERMINISTIC || this == ORTHOGONAL_LOTS;
    }

    /**
     * The algorithm's name, as {@link Subsetter#NAMES} and front ends write it.
     *
     * @return the name in lower case
     */
    public String algorithmName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The default of {@link #ALGORITHM}. */
  public static final Algorithm DEFAULT_ALGORITHM = Algorithm.AUTO;
  /** The default of {@link #SUBSET_SIZE}: {@value}. */
  public static final int DEFAULT_SUBSET_SIZE = 20;
  /** The largest subset size any front end accepts: {@value}. */
  public static final int MAX_SUBSET_SIZE = 10_000;
  /** The value of {@link #CLIENT_INDEX} that means "no index set": {@value}. */
  public static final int NO_INDEX = -1;
  /** The value of {@link #CLIENT_COUNT} that means "the number of clients is not known": {@value}. */
  public static final int NO_COUNT = 0;

  /** {@setting} */
  public static final Setting<Algorithm> ALGORITHM =
      Setting.choice("subsetAlgorithm", DEFAULT_ALGORITHM, "the subsetting algorithm");
  /** {@setting} */
  public static final Setting<Integer> SUBSET_SIZE =
      Setting.wholeNumber("subsetSize", DEFAULT_SUBSET_SIZE, 1, MAX_SUBSET_SIZE,
          "backends in the client's subset (of its own zone, with zones)");
  /** {@setting} */
  public static final Setting<Integer> REMOTE_SUBSET_SIZE =
      Setting.wholeNumber("remoteSubsetSize", 0, MAX_SUBSET_SIZE,
              "with zones, backends of each other zone in the subset beside those of the client's own")
          .defaultFrom(SUBSET_SIZE, size -> size, "the subset size");
  /** {@setting} */
  public static final Setting<Integer> SALT =
      Setting.wholeNumber("subsetSalt", 0, Integer.MIN_VALUE, Integer.MAX_VALUE,
          "the service's salt: services with different salts get unrelated subsets");
  /** {@setting} */
  public static final Setting<Integer> LOT_SIZE =
      Setting.wholeNumber("lotSize", 0, 0, MAX_SUBSET_SIZE,
          "orthogonal_lots: subsets per lot, 0 for round(backends / subset size)");
  /** {@setting} */
  public static final Setting<Integer> CLIENT_INDEX =
      Setting.wholeNumber("clientIndex", NO_INDEX, NO_INDEX, Integer.MAX_VALUE - 1,
          "this client's dense index among the service's clients, -1 for none");
  /** {@setting} */
  public static final Setting<Integer> CLIENT_COUNT =
      Setting.wholeNumber("clientCount", NO_COUNT, NO_COUNT, Integer.MAX_VALUE,
          "how many clients the service has, 0 when unknown; read only with clientIndex");

  /** The declared settings, and how each reaches the builder. */
  public static final Settings<SubsetConfig> SETTINGS =
      Settings.declare("subsetting", SubsetConfig::builder, Builder::build)
          .with(ALGORITHM, Builder::algorithm, SubsetConfig::algorithm)
          .with(SUBSET_SIZE, Builder::subsetSize, SubsetConfig::subsetSize)
          .with(REMOTE_SUBSET_SIZE, Builder::remoteSubsetSize, SubsetConfig::remoteSubsetSize)
          .with(SALT, Builder::salt, SubsetConfig::salt)
          .with(LOT_SIZE, Builder::lotSize, SubsetConfig::lotSize)
          .with(CLIENT_INDEX, Builder::clientIndex, SubsetConfig::clientIndex)
          .with(CLIENT_COUNT, Builder::clientCount, SubsetConfig::clientCount)
          .done();

  /**
   * Checks every setting and the relations between them.
   *
   * @param algorithm {@setting ALGORITHM}
   * @param subsetSize {@setting SUBSET_SIZE}
   * @param remoteSubsetSize {@setting REMOTE_SUBSET_SIZE}
   * @param salt {@setting SALT}
   * @param lotSize {@setting LOT_SIZE}
   * @param clientIndex {@setting CLIENT_INDEX}
   * @param clientCount {@setting CLIENT_COUNT}
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a value out of range,
   *     a lot size with another algorithm than {@code orthogonal_lots}, or an index not below the
   *     count
   */
  public SubsetConfig {
    Objects.requireNonNull(algorithm, "subsetAlgorithm");
    SUBSET_SIZE.check(subsetSize);
    REMOTE_SUBSET_SIZE.check(remoteSubsetSize);
    LOT_SIZE.check(lotSize);
    CLIENT_INDEX.check(clientIndex);
    CLIENT_COUNT.check(clientCount);
    if (lotSize > 0 && algorithm != Algorithm.ORTHOGONAL_LOTS && algorithm != Algorithm.AUTO) {
      throw new IllegalArgumentException("lotSize: " + lotSize + " (expected: only with subsetAlgorithm orthogonal_lots, not "
          + algorithm.algorithmName() + ")");
    }
    if (clientCount != NO_COUNT && clientIndex != NO_INDEX && clientIndex >= clientCount) {
      throw new IllegalArgumentException(
          "clientIndex: " + clientIndex + " (expected: 0.." + (clientCount - 1) + " for clientCount " + clientCount + ")");
    }
  }

  /**
   * Every setting at its default: {@code auto}, subsets of 20, no index.
   *
   * @return the config
   */
  public static SubsetConfig defaults() {
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
   * Who the client is: its index (and count) when set, else anonymous with {@code anonymousSeed}.
   *
   * @param anonymousSeed the seed of a client without an index, such as a random number drawn once
   *     per process
   * @return the identity
   */
  public ClientIdentity identity(long anonymousSeed) {
    if (clientIndex == NO_INDEX) {
      return ClientIdentity.anonymous(anonymousSeed);
    }
    return clientCount == NO_COUNT ? ClientIdentity.ofIndex(clientIndex) : ClientIdentity.of(clientIndex, clientCount);
  }

  /**
   * The algorithm for a client of {@code identity}: {@code auto} resolved by whether the client has
   * an index, salted, with the lot size for {@code orthogonal_lots}.
   *
   * @param identity who the client is
   * @return the subsetter
   * @throws IllegalArgumentException for {@code deterministic} or {@code orthogonal_lots} chosen
   *     for a client without an index
   */
  public Subsetter subsetter(ClientIdentity identity) {
    Algorithm chosen = algorithm;
    if (chosen == Algorithm.AUTO) {
      chosen = identity.hasIndex() ? Algorithm.ORTHOGONAL_LOTS : Algorithm.RENDEZVOUS;
    } else if (chosen.needsIndex() && !identity.hasIndex()) {
      throw new IllegalArgumentException("subsetAlgorithm: " + chosen.algorithmName()
          + " (expected: rendezvous, random or auto for a client without an index, or clientIndex set)");
    }
    if (chosen == Algorithm.ORTHOGONAL_LOTS && lotSize > 0) {
      return Subsetter.orthogonalLots(salt, lotSize);
    }
    return Subsetter.byName(chosen.algorithmName(), salt);
  }

  /** Settings start at their defaults; {@link #build()} validates. */
  public static final class Builder {
    private Algorithm algorithm = DEFAULT_ALGORITHM;
    private int subsetSize = DEFAULT_SUBSET_SIZE;
    private Integer remoteSubsetSize;
    private int salt;
    private int lotSize;
    private int clientIndex = NO_INDEX;
    private int clientCount = NO_COUNT;

    private Builder() {}

    /**
     * {@setting ALGORITHM}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder algorithm(Algorithm value) {
      this.algorithm = value;
      return this;
    }

    /**
     * {@setting SUBSET_SIZE}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder subsetSize(int value) {
      this.subsetSize = value;
      return this;
    }

    /**
     * {@setting REMOTE_SUBSET_SIZE}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder remoteSubsetSize(int value) {
      this.remoteSubsetSize = value;
      return this;
    }

    /**
     * {@setting SALT}
     *
     * @param value the value
     * @return this builder
     */
    public Builder salt(int value) {
      this.salt = value;
      return this;
    }

    /**
     * {@setting LOT_SIZE}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder lotSize(int value) {
      this.lotSize = value;
      return this;
    }

    /**
     * {@setting CLIENT_INDEX}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder clientIndex(int value) {
      this.clientIndex = value;
      return this;
    }

    /**
     * {@setting CLIENT_COUNT}
     *
     * @param value the value; {@link #build()} checks it
     * @return this builder
     */
    public Builder clientCount(int value) {
      this.clientCount = value;
      return this;
    }

    /**
     * Builds the config; the remote subset size, unless set, is the subset size.
     *
     * @return the config
     * @throws IllegalArgumentException for a value out of range or a broken relation
     */
    public SubsetConfig build() {
      int remote = remoteSubsetSize != null ? remoteSubsetSize : REMOTE_SUBSET_SIZE.defaultFor(subsetSize);
      return new SubsetConfig(algorithm, subsetSize, remote, salt, lotSize, clientIndex, clientCount);
    }
  }
}
