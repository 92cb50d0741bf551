package dev.ballast.health;

import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

final class CapacitySignal implements CapacityGate {
  private static final VarHandle WAITERS = VarHandles.field(MethodHandles.lookup(), "waiters", int.class);

  // A field rather than an AtomicInteger: every request's end reads it, and the AtomicInteger
  // would be one more dependent load.
  private volatile int waiters;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile long epoch;

  @Override
  public void enter() {
    WAITERS.getAndAdd(this, 1);
  }

  @Override
  public void exit() {
    WAITERS.getAndAdd(this, -1);
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public void awaitChange(long seenEpoch, long timeoutNanos) throws InterruptedException {
    long remaining = timeoutNanos;
    lock.lock();
    try {
      while (epoch == seenEpoch && remaining > 0) {
        remaining = changed.awaitNanos(remaining);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void signal() {
    // The caller's preceding volatile write (a released request, a state change) and this
    // volatile read pair with the waiter's enter() and its retried pick: one of them sees the other.
    if (waiters == 0) {
      return;
    }
    lock.lock();
    try {
      epoch++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "CapacitySignal{waiters=" + waiters + ", epoch=" + epoch + "}";
  }
}
