package dev.ballast.pick;

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
}
