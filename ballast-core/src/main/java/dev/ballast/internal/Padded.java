package dev.ballast.internal;

import dev.ballast.annotation.Internal;

/**
 * A superclass whose only job is 128 bytes of unused fields ahead of a subclass's own fields.
 * The JVM lays out a superclass's fields before a subclass's, so an object that extends this keeps
 * its fields off the cache lines (and adjacent-line prefetch pairs) that hold the object allocated
 * before it. Ballast uses it for the statistics that completions write on every request, which
 * are allocated next to the slots that picks on every core read. It is not used for objects that
 * picks read: the padding puts their fields one line away from their header, which a type check
 * reads, and a pick would touch two lines per backend instead of one. Internal to Ballast: not an
 * API.
 */
@Internal
public abstract class Padded {
  // 16 longs: 128 bytes.
  long p00, p01, p02, p03, p04, p05, p06, p07;
  long p08, p09, p10, p11, p12, p13, p14, p15;

  /** For subclasses only. */
  protected Padded() {}
}
