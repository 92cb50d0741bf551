package dev.ballast.pick;

import dev.ballast.annotation.Experimental;

/**
 * An immutable snapshot of a policy over one subset, built by the control plane. {@link #pick()}
 * is thread-safe, lock-free and allocates nothing; it still sees every backend's live state and
 * active-request count, so a backend that just went into lame duck or reached its limit is skipped
 * before any new snapshot is built.
 */
@FunctionalInterface
public interface Picker {

  /**
   * Chooses a backend for one request and counts the request as active on it; fails fast with a
   * typed {@link PickStatus} when there is none.
   *
   * @return the pick, which the caller ends exactly once with its outcome
   */
  Pick pick();

  /**
   * Chooses a backend for one request that carries a key (a user, a shard, a cache entry), for
   * the policies that keep a key on one backend ({@code consistent_hash}); every other policy
   * picks as {@link #pick()} does, which is what this default does. Thread-safe, lock-free and
   * allocation-free like {@link #pick()}.
   *
   * @param keyHash a 64-bit hash of the request's key, such as {@link KeyHash#of(CharSequence)}
   *     gives; any number the application derives from the key will do (the picker spreads it
   *     itself, so consecutive numbers are fine), as long as every client derives it alike
   * @return the pick, which the caller ends exactly once with its outcome
   */
  @Experimental("keyed picks are new with consistent hashing")
  default Pick pickByKey(long keyHash) {
    return pick();
  }
}
