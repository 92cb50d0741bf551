/**
 * Measurements, never deployed: JMH benchmarks (pickers against gRPC-Java's own, clocks, token
 * buckets, meter bindings, overload classes, subsetting) and runnable loopback measurements
 * (channel throughput, Prequal, the quota fleet, the limiter shoot-out). docs/benchmarks.md records
 * their figures with the commands that produce them.
 */
package dev.ballast.benchmarks;
