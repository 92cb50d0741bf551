package dev.ballast.testing;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;

/** What the calling thread has allocated, for tests that a hot path allocates nothing. */
public final class Allocations {
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  private Allocations() {}

  /**
   * Bytes the calling thread has allocated since it started; the difference of two readings is
   * what ran between them allocated (reading it may itself cost a few bytes).
   */
  public static long byThisThread() {
    return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
  }
}
