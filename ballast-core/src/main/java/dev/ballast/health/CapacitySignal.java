package dev.ballast.health;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

final class CapacitySignal implements CapacityGate {
  private final AtomicInteger waiters = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile long epoch;

  @Override
  public void enter() {
    waiters.incrementAndGet();
  }

  @Override
  public void exit() {
    waiters.decrementAndGet();
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public long awaitChange(long seenEpoch, long timeoutNanos) throws InterruptedException {
    long remaining = timeoutNanos;
    lock.lock();
    try {
      while (epoch == seenEpoch && remaining > 0) {
        remaining = changed.awaitNanos(remaining);
      }
      return remaining;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void signal() {
    // The caller's preceding volatile write (a released request, a state change) and this
    // volatile read pair with the waiter's enter() and its retried pick: one of them sees the other.
    if (waiters.get() == 0) {
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
    return "CapacitySignal{waiters=" + waiters.get() + ", epoch=" + epoch + "}";
  }
}
