package dev.ballast.http;

import dev.ballast.annotation.Experimental;

/**
 * A header whose value breaks its grammar. Readers of Ballast's headers throw it so that the
 * transport can ignore the header and count it; it is never fatal to the request that carried it.
 * It carries no stack trace: a peer that sends a bad header on every message must not make each
 * one costly.
 */
@Experimental
public final class MalformedHeaderException extends RuntimeException {
  /** The serialized form's version. */
  private static final long serialVersionUID = 1L;
  private static final int QUOTED_LENGTH = 40;

  /** The name of the malformed header. */
  private final String header;

  /**
   * A bad value of {@code header}, with a message in the project's shape: {@code "header: 'value'
   * (expected: ...)"}, the value quoted short.
   *
   * @param header the header's name
   * @param value the value as received
   * @param expected what the grammar expects, or what it rejects and why
   */
  public MalformedHeaderException(String header, String value, String expected) {
    super(header + ": " + quote(value) + " (expected: " + expected + ")", null, false, false);
    this.header = header;
  }

  /**
   * The name of the header that was malformed.
   *
   * @return the header's name
   */
  public String header() {
    return header;
  }

  /**
   * A value as messages quote it: in single quotes, cut to 40 characters with an ellipsis, control
   * characters shown as {@code ?}.
   *
   * @param value the value, or null
   * @return the quoted value
   */
  static String quote(String value) {
    if (value == null) {
      return "null";
    }
    String cut = value.length() > QUOTED_LENGTH ? value.substring(0, QUOTED_LENGTH) + "..." : value;
    StringBuilder out = new StringBuilder(cut.length() + 2).append('\'');
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return out.append('\'').toString();
  }
}
