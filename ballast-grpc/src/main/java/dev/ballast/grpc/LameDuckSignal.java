package dev.ballast.grpc;

import io.grpc.Metadata;

/**
 * The lame duck signal a Ballast server puts on every response while it drains: a trailer that
 * Ballast clients read on each call, so a backend leaves their rotation one round trip after it
 * enters lame duck (health checks only tell idle clients, and only at their interval).
 */
final class LameDuckSignal {
  static final Metadata.Key<String> TRAILER = Metadata.Key.of("ballast-lame-duck", Metadata.ASCII_STRING_MARSHALLER);
  static final String VALUE = "1";

  private LameDuckSignal() {}

  static boolean isPresent(Metadata trailers) {
    return trailers.containsKey(TRAILER);
  }
}
