package dev.ballast.pick;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The hash of a request's key: specified (test vectors for clients in other languages) and encoding-exact. */
final class KeyHashTest {

  @Test
  void vectors() {
    // FNV-1a 64 of the UTF-8 bytes, then SplitMix64's finalizer (docs/policies.md).
    assertThat(KeyHash.of("")).isEqualTo(dev.ballast.internal.SplitMix64.finalizeMix(0xCBF29CE484222325L));
    assertThat(KeyHash.of("a")).isEqualTo(dev.ballast.internal.SplitMix64.finalizeMix(0xAF63DC4C8601EC8CL));
    assertThat(KeyHash.of("user-42")).isEqualTo(KeyHash.of("user-42".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void textHashesAsItsUtf8Bytes() {
    forAll(in -> in.string(0, 12) + new String(Character.toChars(in.intBetween(0, 0x10FFFF)))
        + (char) in.intBetween(0, 0xFFFF), key -> {
      byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
      assertThat(KeyHash.of(key)).as("%s", key).isEqualTo(KeyHash.of(utf8));
      assertThat(KeyHash.of(new StringBuilder(key))).isEqualTo(KeyHash.of(key));
    });
  }
}
