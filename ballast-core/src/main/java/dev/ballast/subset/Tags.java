package dev.ballast.subset;

import dev.ballast.internal.SplitMix64;

/** The {@code tag} argument of {@link SplitMix64#derive}: one per purpose, fixed by the specification. */
final class Tags {
  static final long RANDOM = 1;
  static final long DETERMINISTIC = 2;
  static final long RENDEZVOUS = 3;
  static final long LOTS_SHUFFLE = 4;
  static final long LOTS_VIRTUAL = 5;
  static final long LOTS_DUPLICATE = 6;
  static final long LOTS_REPAIR = 7;
  static final long REPLACEMENT = 8;

  private Tags() {}
}
