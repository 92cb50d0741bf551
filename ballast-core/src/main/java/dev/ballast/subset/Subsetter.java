package dev.ballast.subset;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Chooses the backends a client holds connections to: a pure function of the service's backends
 * (sorted into a stable order first), the client's identity and the subset size. The same inputs
 * give the same subset in every process, JVM and version; {@code docs/subsetting.md} specifies
 * every algorithm bit for bit.
 *
 * <p>Implementations are immutable and thread-safe.
 */
public interface Subsetter {

  /** The algorithm names accepted by {@link #byName(String, long)}. */
  List<String> NAMES = List.of("random", "deterministic", "rendezvous", "orthogonal_lots");

  /**
   * The algorithm's name.
   *
   * @return one of {@link #NAMES}
   */
  String name();

  /**
   * The ranks (positions in {@link BackendSet#keys()}) of this client's subset: exactly
   * {@code subsetSize} distinct ranks.
   *
   * @param backends the service's backends
   * @param client who this client is
   * @param subsetSize how many backends the client connects to
   * @return the ranks, in the algorithm's order of preference
   * @throws IllegalArgumentException if {@code subsetSize} is not in {@code 1..backends.size()}, or
   *     the algorithm needs an index and the client has none
   */
  int[] subsetRanks(BackendSet backends, ClientIdentity client, int subsetSize);

  /**
   * The keys of this client's subset.
   *
   * @param backends the service's backends
   * @param client who this client is
   * @param subsetSize how many backends the client connects to
   * @return the keys, in the order of {@link #subsetRanks}
   * @throws IllegalArgumentException if {@code subsetSize} is not in {@code 1..backends.size()}, or
   *     the algorithm needs an index and the client has none
   */
  default List<String> subset(BackendSet backends, ClientIdentity client, int subsetSize) {
    int[] ranks = subsetRanks(backends, client, subsetSize);
    List<String> keys = new ArrayList<>(ranks.length);
    for (int rank : ranks) {
      keys.add(backends.key(rank));
    }
    return keys;
  }

  /**
   * This client's subset of {@code backends}, each identified by {@code keyOf}.
   *
   * @param <T> the caller's type of backend (an address, a server object)
   * @param backends the service's backends, in any order
   * @param keyOf each backend's stable key
   * @param client who this client is
   * @param subsetSize how many backends the client connects to
   * @return the chosen backends
   * @throws IllegalArgumentException for duplicate keys or a bad subset size
   */
  default <T> List<T> subset(
      Collection<? extends T> backends,
      Function<? super T, String> keyOf,
      ClientIdentity client,
      int subsetSize) {
    Map<String, T> byKey = new HashMap<>();
    for (T backend : backends) {
      String key = keyOf.apply(backend);
      if (byKey.putIfAbsent(key, backend) != null) {
        throw new IllegalArgumentException("backends: duplicate key '" + key + "' (expected: unique keys)");
      }
    }
    BackendSet set = BackendSet.of(byKey.keySet());
    List<T> out = new ArrayList<>(subsetSize);
    for (String key : subset(set, client, subsetSize)) {
      out.add(byKey.get(key));
    }
    return out;
  }

  /**
   * The subsets of clients {@code 0 .. clientCount-1}, each knowing that there are
   * {@code clientCount} clients: element {@code c} is client {@code c}'s ranks.
   *
   * @param backends the service's backends
   * @param clientCount how many clients there are, 1 or more
   * @param subsetSize how many backends each client connects to
   * @return every client's ranks
   * @throws IllegalArgumentException for a client count below 1 or a bad subset size
   */
  default int[][] assignAll(BackendSet backends, int clientCount, int subsetSize) {
    SubsetArguments.checkClientCount(clientCount);
    int[][] out = new int[clientCount][];
    for (int c = 0; c < clientCount; c++) {
      out[c] = subsetRanks(backends, ClientIdentity.of(c, clientCount), subsetSize);
    }
    return out;
  }

  /**
   * The chapter's baseline: each client shuffles the backends with its own seed and takes a
   * prefix. Needs no index; balances only on average.
   *
   * @return the subsetter, unsalted
   */
  static Subsetter random() {
    return random(0);
  }

  /**
   * {@link #random()} with a service-wide salt.
   *
   * @param salt services with different salts get unrelated subsets
   * @return the subsetter
   */
  static Subsetter random(long salt) {
    return new RandomSubsetter(salt);
  }

  /**
   * The chapter's deterministic subsetting, with leftover backends rotated across rounds. Needs a
   * dense client index.
   *
   * @return the subsetter, unsalted
   */
  static Subsetter deterministic() {
    return deterministic(0);
  }

  /**
   * {@link #deterministic()} with a service-wide salt.
   *
   * @param salt services with different salts get unrelated subsets
   * @return the subsetter
   */
  static Subsetter deterministic(long salt) {
    return new DeterministicSubsetter(salt);
  }

  /**
   * Top-k by a seeded hash of each backend key: low churn, no balance guarantee, no index
   * needed.
   *
   * @return the subsetter, unsalted
   */
  static Subsetter rendezvous() {
    return rendezvous(0);
  }

  /**
   * {@link #rendezvous()} with a service-wide salt.
   *
   * @param salt services with different salts get unrelated subsets
   * @return the subsetter
   */
  static Subsetter rendezvous(long salt) {
    return new RendezvousSubsetter(salt);
  }

  /**
   * Ballast's design: deterministic subsetting's perfect balance with churn close to the minimum
   * when backends are added or removed, and lots of clients whose subsets overlap in at most a few
   * backends. Needs a dense client index.
   *
   * @return the subsetter, unsalted, with the automatic lot size
   */
  static Subsetter orthogonalLots() {
    return orthogonalLots(0);
  }

  /**
   * {@link #orthogonalLots()} with a service-wide salt.
   *
   * @param salt services with different salts get unrelated subsets
   * @return the subsetter
   */
  static Subsetter orthogonalLots(long salt) {
    return new OrthogonalLotsSubsetter(salt, 0);
  }

  /**
   * {@link #orthogonalLots(long)} with a fixed number of subsets per lot instead of
   * {@code round(N / k)}. Pin it (to the automatic value of the current N and k) before changing
   * the subset size: each client then gains or loses about one connection instead of the lots
   * re-forming. Balance stays within one connection through the repair pass.
   *
   * @param salt services with different salts get unrelated subsets
   * @param lotSize subsets per lot, 1 or more
   * @return the subsetter
   * @throws IllegalArgumentException if {@code lotSize < 1}
   */
  static Subsetter orthogonalLots(long salt, int lotSize) {
    if (lotSize < 1) {
      throw new IllegalArgumentException("lotSize: " + lotSize + " (expected: 1 or more)");
    }
    return new OrthogonalLotsSubsetter(salt, lotSize);
  }

  /**
   * The algorithm called {@code name} (one of {@link #NAMES}).
   *
   * @param name the algorithm's name
   * @param salt services with different salts get unrelated subsets
   * @return the subsetter
   * @throws IllegalArgumentException for an unknown name
   */
  static Subsetter byName(String name, long salt) {
    Objects.requireNonNull(name, "name");
    switch (name) {
      case "random":
        return random(salt);
      case "deterministic":
        return deterministic(salt);
      case "rendezvous":
        return rendezvous(salt);
      case "orthogonal_lots":
        return orthogonalLots(salt);
      default:
        throw new IllegalArgumentException(
            "algorithm: '" + name + "' (expected: one of " + String.join(", ", NAMES) + ")");
    }
  }
}
