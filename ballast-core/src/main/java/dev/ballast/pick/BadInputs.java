package dev.ballast.pick;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a balancer's callers reported that it did not take as given, counted so that nothing is
 * dropped or changed without a record: load reports rejected for a negative, NaN or infinite
 * field, and outcomes whose negative latency was counted as zero. One per balancer, shared by its
 * slots.
 */
final class BadInputs {
  final LongAdder loadReports = new LongAdder();
  final LongAdder negativeLatencies = new LongAdder();
  /** Probe answers the pool could not store (every place it tried was being written at once). */
  final LongAdder lostProbes = new LongAdder();
}
