package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A service's backends as every client sees them: unique keys in a stable natural order (so
 * {@code task-2} precedes {@code task-10}). A backend's <em>rank</em> is its position in that
 * order; subsetters work on ranks and map back to keys.
 *
 * <p>Use the key the deployment keeps stable for a task (a task ordinal or a pod name with its
 * ordinal), not an address that changes on restart: a resize then adds or removes the highest
 * ranks, which is the case the low-churn algorithms optimise.
 */
public final class BackendSet {
  private final List<String> keys;
  private final long[] keyHashes;

  private BackendSet(List<String> sortedKeys) {
    this.keys = List.copyOf(sortedKeys);
    this.keyHashes = new long[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      keyHashes[i] = SplitMix64.fnv1a(keys.get(i));
    }
  }

  /**
   * The backends with these keys, in any order.
   *
   * @param keys the backends' keys
   * @return the set, its keys in natural order
   * @throws IllegalArgumentException if there are no keys, a key is empty, or a key repeats
   */
  public static BackendSet of(Collection<String> keys) {
    Objects.requireNonNull(keys, "keys");
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("backends: none (expected: at least 1 backend)");
    }
    Set<String> seen = new HashSet<>();
    for (String key : keys) {
      if (key == null || key.isEmpty()) {
        throw new IllegalArgumentException(
            "backends: key " + (key == null ? "null" : "''") + " (expected: a non-empty key)");
      }
      if (!seen.add(key)) {
        throw new IllegalArgumentException("backends: duplicate key '" + key + "' (expected: unique keys)");
      }
    }
    List<String> sorted = new ArrayList<>(keys);
    sorted.sort(BackendKeys.NATURAL_ORDER);
    return new BackendSet(sorted);
  }

  /**
   * Backends keyed {@code "0"} to {@code "n-1"}: rank and key coincide.
   *
   * @param n how many backends, 1 or more
   * @return the set
   * @throws IllegalArgumentException when {@code n} is below 1
   */
  public static BackendSet ofCount(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("backends: " + n + " (expected: at least 1)");
    }
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(Integer.toString(i));
    }
    return new BackendSet(keys);
  }

  /**
   * How many backends the set has.
   *
   * @return the count, 1 or more
   */
  public int size() {
    return keys.size();
  }

  /**
   * The key of the backend at {@code rank} in natural order.
   *
   * @param rank the backend's rank, {@code 0..size()-1}
   * @return its key
   * @throws IndexOutOfBoundsException for a rank out of range
   */
  public String key(int rank) {
    return keys.get(rank);
  }

  /**
   * All keys in natural order.
   *
   * @return the keys, unmodifiable
   */
  public List<String> keys() {
    return keys;
  }

  /**
   * The rank of a backend.
   *
   * @param key the backend's key
   * @return its rank, or -1 if it is not a member
   */
  public int rankOf(String key) {
    int lo = 0;
    int hi = keys.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = BackendKeys.compare(keys.get(mid), key);
      if (c == 0) {
        return mid;
      } else if (c < 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return -1;
  }

  long keyHash(int rank) {
    return keyHashes[rank];
  }

  @Override
  public String toString() {
    return "BackendSet" + keys;
  }
}
