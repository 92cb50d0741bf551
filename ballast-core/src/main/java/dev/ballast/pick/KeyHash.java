package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.internal.SplitMix64;
import java.util.Objects;

/**
 * The hash of a request's key for {@link Balancer#pickByKey(long)}: 64-bit FNV-1a over the key's
 * UTF-8 bytes, then SplitMix64's finalizer, so that clients in any language that follow {@code
 * docs/policies.md} hash a key alike. Allocation-free.
 */
@Experimental("keyed picks are new with consistent hashing")
public final class KeyHash {
  private KeyHash() {}

  /**
   * The hash of a key written as text, encoded as UTF-8 on the fly (nothing is allocated).
   *
   * @param key the key, such as a user id or a header's value
   * @return its hash
   * @throws NullPointerException for a null key
   */
  public static long of(CharSequence key) {
    return SplitMix64.finalizeMix(SplitMix64.fnv1a(Objects.requireNonNull(key, "key")));
  }

  /**
   * The hash of a key given as bytes.
   *
   * @param key the key's bytes
   * @return its hash; the same as {@link #of(CharSequence)} gives for the text these bytes encode in UTF-8
   * @throws NullPointerException for a null key
   */
  public static long of(byte[] key) {
    return SplitMix64.finalizeMix(SplitMix64.fnv1a(Objects.requireNonNull(key, "key")));
  }
}
