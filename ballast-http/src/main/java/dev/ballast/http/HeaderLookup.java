package dev.ballast.http;

import dev.ballast.annotation.Experimental;

/**
 * How Ballast reads a message's headers on any HTTP stack: the first value of the header named
 * (names are case-insensitive, as in HTTP), or null when it is absent. Adapt a stack's own header
 * type with a method reference, e.g. {@code name -> headers.firstValue(name).orElse(null)} for
 * {@link java.net.http.HttpHeaders} or {@code headers::getFirst} for a {@code
 * com.sun.net.httpserver.Headers}.
 */
@Experimental
@FunctionalInterface
public interface HeaderLookup {

  /** No headers at all. */
  HeaderLookup NONE = name -> null;

  /**
   * The first value of a header.
   *
   * @param name the header's name, in lower case
   * @return its first value, or null when the message has none
   */
  String first(String name);
}
