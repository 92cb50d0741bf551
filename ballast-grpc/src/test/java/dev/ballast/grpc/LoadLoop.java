package dev.ballast.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Continuous load: threads that each call one channel back to back until stopped, or until a
 * bound on calls or time, whichever comes first, and count successes and failures by status.
 */
final class LoadLoop implements AutoCloseable {
  private final List<Thread> threads = new ArrayList<>();
  private final LongAdder succeeded = new LongAdder();
  private final Map<Status.Code, LongAdder> failed = new ConcurrentHashMap<>();
  private volatile boolean stopped;

  LoadLoop(List<ManagedChannel> channels, int threadsPerChannel, long maxCallsPerThread, long maxSeconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
    for (int c = 0; c < channels.size(); c++) {
      ManagedChannel channel = channels.get(c);
      String caller = "client-" + c;
      for (int t = 0; t < threadsPerChannel; t++) {
        Thread thread =
            new Thread(
                () -> {
                  for (long i = 0; i < maxCallsPerThread && !stopped && System.nanoTime() < deadline; i++) {
                    try {
                      Clients.call(channel, caller);
                      succeeded.increment();
                    } catch (StatusRuntimeException e) {
                      failed.computeIfAbsent(e.getStatus().getCode(), k -> new LongAdder()).increment();
                    }
                  }
                },
                "load-" + caller + "-" + t);
        thread.setDaemon(true);
        threads.add(thread);
      }
    }
    threads.forEach(Thread::start);
  }

  long succeeded() {
    return succeeded.sum();
  }

  long failed() {
    return failed.values().stream().mapToLong(LongAdder::sum).sum();
  }

  Map<Status.Code, Long> failuresByCode() {
    Map<Status.Code, Long> out = new java.util.TreeMap<>();
    failed.forEach((code, count) -> out.put(code, count.sum()));
    return out;
  }

  /** Stops the threads and waits for their calls in flight to end. */
  void stop() throws InterruptedException {
    stopped = true;
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
