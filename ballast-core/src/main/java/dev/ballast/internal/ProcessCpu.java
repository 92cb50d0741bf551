package dev.ballast.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;

/**
 * This JVM's recent CPU use as a fraction of the machine (ORCA's {@code cpu_utilization}), sampled
 * at most once per second so that answering a request never costs more than a volatile read. The
 * servers of every transport module report it.
 */
public final class ProcessCpu implements DoubleSupplier {
  private static final long SAMPLE_NANOS = 1_000_000_000L;

  private final com.sun.management.OperatingSystemMXBean bean;
  private final AtomicLong sampledAt = new AtomicLong(System.nanoTime() - SAMPLE_NANOS);
  private volatile double last;

  /** Reads the platform's operating-system bean once; without a process CPU reading it reports 0 (unknown). */
  public ProcessCpu() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    // Only HotSpot-style JVMs expose process CPU; elsewhere the report says 0, which means unknown.
    this.bean = os instanceof com.sun.management.OperatingSystemMXBean ? (com.sun.management.OperatingSystemMXBean) os : null;
  }

  /**
   * The process's CPU use as of the latest sample, 0 to 1.
   *
   * @return the share of the machine's CPU this process used, or 0 when unknown
   */
  @Override
  public double getAsDouble() {
    long now = System.nanoTime();
    long at = sampledAt.get();
    if (bean != null && now - at >= SAMPLE_NANOS && sampledAt.compareAndSet(at, now)) {
      double load = bean.getProcessCpuLoad();
      last = load >= 0 ? load : 0;
    }
    return last;
  }
}
