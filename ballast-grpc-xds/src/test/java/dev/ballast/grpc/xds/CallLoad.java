package dev.ballast.grpc.xds;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Blocking calls back to back from a few threads on one channel, until stopped or a bound on calls
 * is reached. Counts calls started, answered (by answering port) and failed (by status code), so
 * that a test sees that every call started also ended.
 */
final class CallLoad implements AutoCloseable {
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong started = new AtomicLong();
  private final LongAdder succeeded = new LongAdder();
  private final Map<Integer, LongAdder> byPort = new ConcurrentHashMap<>();
  private final Map<Status.Code, LongAdder> failed = new ConcurrentHashMap<>();
  private final Map<Status.Code, String> firstFailure = new ConcurrentHashMap<>();
  private volatile boolean stopped;

  CallLoad(Channel channel, int threadCount, long maxCallsPerThread) {
    for (int t = 0; t < threadCount; t++) {
      Thread thread =
          new Thread(
              () -> {
                for (long i = 0; i < maxCallsPerThread && !stopped; i++) {
                  started.incrementAndGet();
                  try {
                    int port = call(channel);
                    byPort.computeIfAbsent(port, p -> new LongAdder()).increment();
                    succeeded.increment();
                  } catch (StatusRuntimeException e) {
                    failed.computeIfAbsent(e.getStatus().getCode(), c -> new LongAdder()).increment();
                    firstFailure.putIfAbsent(e.getStatus().getCode(), e.getStatus().toString());
                  }
                  Await.signal();
                }
              },
              "xds-load-" + t);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
  }

  /** One call; returns the port of the backend that answered. */
  static int call(Channel channel) {
    byte[] answer =
        ClientCalls.blockingUnaryCall(
            channel,
            XdsBackend.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(Await.GUARD_SECONDS, TimeUnit.SECONDS),
            new byte[0]);
    return Integer.parseInt(new String(answer, StandardCharsets.US_ASCII));
  }

  long started() {
    return started.get();
  }

  long succeeded() {
    return succeeded.sum();
  }

  long failed() {
    return failed.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Calls answered by each port so far. */
  Map<Integer, Long> answersByPort() {
    Map<Integer, Long> out = new TreeMap<>();
    byPort.forEach((port, count) -> out.put(port, count.sum()));
    return out;
  }

  /** The failures by code, with the first status of each, for an assertion's message. */
  String failures() {
    Map<Status.Code, String> out = new TreeMap<>();
    failed.forEach((code, count) -> out.put(code, count.sum() + " x " + firstFailure.get(code)));
    return out.toString();
  }

  /** Waits until {@code more} calls have been answered after this moment. */
  void awaitMoreAnswers(String what, long more) throws InterruptedException {
    long target = succeeded() + more;
    Await.until(what + " (" + more + " more calls answered)", () -> succeeded() >= target || failed() > 0);
  }

  /** Stops the threads and waits for their calls in flight to end. */
  void stop() throws InterruptedException {
    stopped = true;
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(Await.GUARD_SECONDS));
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
