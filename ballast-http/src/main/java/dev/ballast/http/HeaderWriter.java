package dev.ballast.http;

import dev.ballast.annotation.Experimental;

/**
 * How Ballast writes a header on any HTTP stack: sets the header named to one value, replacing any
 * it had. Adapt a stack's own header type with a lambda, e.g. {@code (name, value) ->
 * headers.set(name, value)}.
 */
@Experimental
@FunctionalInterface
public interface HeaderWriter {

  /**
   * Sets a header.
   *
   * @param name the header's name, in lower case
   * @param value its one value
   */
  void set(String name, String value);
}
