package dev.ballast.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Ids are limited in characters (code points, not UTF-16 units) and in UTF-8 bytes, and messages quote a long one by its start. */
final class QuotaIdsTest {
  private static final String EXPECTED = " (expected: 1..256 characters, at most 512 bytes in UTF-8)";

  @Test
  void anIdIsOneTo256Characters() {
    assertThatCode(() -> QuotaMessages.checkId("client_id", "a".repeat(256))).doesNotThrowAnyException();
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", "a".repeat(257)))
        .hasMessage("client_id: '" + "a".repeat(32) + "...' of 257 characters" + EXPECTED);
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", "")).hasMessage("client_id: ''" + EXPECTED);
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", null)).hasMessage("client_id: null" + EXPECTED);
  }

  /** An emoji is one character though two UTF-16 units, and four bytes in UTF-8. */
  @Test
  void charactersAreCodePointsAndBytesAreCountedInUtf8() {
    String emoji = "\uD83D\uDE00";
    assertThatCode(() -> QuotaMessages.checkId("client_id", emoji.repeat(128))).as("128 characters, 512 bytes")
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", emoji.repeat(129)))
        .hasMessage("client_id: '" + emoji.repeat(32) + "...' of 129 characters, 516 UTF-8 bytes" + EXPECTED);
    String cjk = "\u6570";
    assertThatCode(() -> QuotaMessages.checkId("client_id", cjk.repeat(170))).as("510 bytes").doesNotThrowAnyException();
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", cjk.repeat(171)))
        .hasMessage("client_id: '" + cjk.repeat(32) + "...' of 171 characters, 513 UTF-8 bytes" + EXPECTED);
    String accented = "\u00e9";
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", accented.repeat(40) + "abcdefghijklmnopqrstuvwxyz".repeat(9)))
        .as("274 characters, 314 bytes").hasMessageStartingWith("client_id: '" + accented.repeat(32) + "...' of 274 characters" + EXPECTED);
  }

  @Test
  void controlCharactersAreEscapedSoAMessageStaysOnOneLine() {
    assertThatThrownBy(() -> QuotaMessages.checkId("client_id", "a\nb" + "c".repeat(300)))
        .hasMessageStartingWith("client_id: 'a\\u000ab" + "c".repeat(29) + "...' of 303 characters");
  }
}
