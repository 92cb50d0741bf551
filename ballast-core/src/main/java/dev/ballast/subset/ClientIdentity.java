package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;

/**
 * Who this client is, for subsetting.
 *
 * <p>The balanced algorithms need a <em>dense index</em>: an ordinal in {@code [0, count)} that the
 * deployment gives each client task (a StatefulSet ordinal, a task index), and, where known, the
 * number of clients {@code count}. Without an index, use {@link #anonymous(long)} with an
 * identity-free algorithm ({@code rendezvous} or {@code random}).
 *
 * @param index the dense index, or -1 when anonymous
 * @param count the number of clients, or -1 when unknown
 * @param seed the anonymous client's seed (0 for indexed clients)
 */
public record ClientIdentity(int index, int count, long seed) {
  /** Marks an unknown index or count. */
  public static final int UNKNOWN = -1;

  /**
   * Checks the index against the count.
   *
   * @param index the dense index, or -1 when anonymous
   * @param count the number of clients, or -1 when unknown
   * @param seed the anonymous client's seed (0 for indexed clients)
   * @throws IllegalArgumentException for an index or count below -1, a count of 0, or an index not
   *     below the count
   */
  public ClientIdentity {
    if (index < UNKNOWN) {
      throw new IllegalArgumentException("client index: " + index + " (expected: 0 or more)");
    }
    if (count < UNKNOWN || count == 0) {
      throw new IllegalArgumentException("client count: " + count + " (expected: 1 or more, or unknown)");
    }
    if (index != UNKNOWN && count != UNKNOWN && index >= count) {
      throw new IllegalArgumentException(
          "client index: " + index + " (expected: 0.." + (count - 1) + " for " + count + " clients)");
    }
  }

  /**
   * Client {@code index} of {@code count} clients.
   *
   * @param index the client's dense index, {@code 0..count-1}
   * @param count the number of clients, 1 or more
   * @return the identity
   * @throws IllegalArgumentException for an index or count out of range
   */
  public static ClientIdentity of(int index, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("client count: " + count + " (expected: 1 or more)");
    }
    // Checked here, not only in the constructor: there -1 means anonymous.
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException(
          "client index: " + index + " (expected: 0.." + (count - 1) + " for " + count + " clients)");
    }
    return new ClientIdentity(index, count, 0);
  }

  /**
   * Client {@code index}; the number of clients is not known.
   *
   * @param index the client's dense index, 0 or more
   * @return the identity
   * @throws IllegalArgumentException for a negative index
   */
  public static ClientIdentity ofIndex(int index) {
    if (index < 0) {
      throw new IllegalArgumentException("client index: " + index + " (expected: 0 or more)");
    }
    return new ClientIdentity(index, UNKNOWN, 0);
  }

  /**
   * A client without an index: {@code seed} should differ between clients (a hash of the host
   * name and process id, or a random number drawn once at start-up).
   *
   * @param seed the client's seed
   * @return the identity
   */
  public static ClientIdentity anonymous(long seed) {
    return new ClientIdentity(UNKNOWN, UNKNOWN, seed);
  }

  /**
   * Whether the client has a dense index, which the balanced algorithms need.
   *
   * @return false for an anonymous client
   */
  public boolean hasIndex() {
    return index != UNKNOWN;
  }

  /**
   * Whether the number of clients is known.
   *
   * @return false when it is unknown
   */
  public boolean hasCount() {
    return count != UNKNOWN;
  }

  /** The client's own seed for {@code tag}: derived from its index, or its anonymous seed. */
  long seedFor(long salt, long tag) {
    return hasIndex() ? SplitMix64.derive(salt, tag, index) : SplitMix64.output(seed ^ salt, tag);
  }
}
