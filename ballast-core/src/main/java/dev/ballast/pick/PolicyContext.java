package dev.ballast.pick;

import dev.ballast.health.NanoClock;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;

/**
 * What a balancer lends its policy: the clock, the control plane's random generator (used only in
 * serialized control-plane calls, e.g. to seed a picker's {@link AtomicSplitMix}) and the counter
 * of rejected load reports.
 */
record PolicyContext(NanoClock clock, RandomGenerator random, LongAdder rejectedLoadReports, boolean warmUp) {}
