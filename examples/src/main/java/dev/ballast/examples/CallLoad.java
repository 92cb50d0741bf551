package dev.ballast.examples;

import dev.ballast.grpc.BallastCalls;
import dev.ballast.overload.Criticality;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Calls on a channel and a count of how they ended: served by which task, shed by a server's
 * limiter, throttled by the client itself, or failed with which status. Two shapes:
 *
 * <ul>
 *   <li>{@linkplain #atRate at a rate}, whatever the answers, as users arrive: offered more than
 *       the servers serve, calls are shed or miss their deadline;
 *   <li>{@linkplain #backToBack back to back} on a number of lanes, each sending its next call
 *       when the last one ended: the load follows the machine's speed, so that a busy machine
 *       makes fewer calls, not failed ones.
 * </ul>
 *
 * Each call is counted in the {@link Tally} that was current when it was sent, so that a tally,
 * once all its calls ended, says exactly what happened to the calls of its time. The load sends
 * only where the channel points, and stops when closed or after its time.
 */
final class CallLoad implements AutoCloseable {
  private static final long TICK_MILLIS = 5;
  /** The trailer a Ballast server puts on a call its limiter shed. */
  private static final Metadata.Key<String> OVERLOAD = Metadata.Key.of("ballast-overload", Metadata.ASCII_STRING_MARSHALLER);

  /** The calls sent during one stretch of time, by how they ended (task names for served calls). */
  static final class Tally {
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final long deadlineNanos;
    private long outstanding; // guarded by this

    private Tally(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }

    private synchronized void sent() {
      outstanding++;
    }

    private void ended(String outcome) {
      outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
      synchronized (this) {
        if (--outstanding == 0) {
          notifyAll();
        }
      }
    }

    /**
     * Waits until every call of this tally has ended: soon once the tally is no longer current,
     * since each call has a deadline (and bounded all the same, at ten deadlines).
     */
    synchronized Tally awaitEnded() throws InterruptedException {
      long giveUp = System.nanoTime() + 10 * deadlineNanos;
      while (outstanding > 0 && System.nanoTime() < giveUp) {
        TimeUnit.NANOSECONDS.timedWait(this, deadlineNanos);
      }
      return this;
    }

    /** How the calls ended so far, by outcome. */
    Map<String, Long> outcomes() {
      Map<String, Long> out = new TreeMap<>();
      outcomes.forEach((outcome, count) -> out.put(outcome, count.sum()));
      return out;
    }
  }

  private final Channel channel;
  private final CallOptions options;
  private final long deadlineNanos;
  private final long endNanos;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "example-load");
        t.setDaemon(true);
        return t;
      });
  private final CountDownLatch firstServed = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private Tally tally; // guarded by this
  private final boolean backToBack;

  private CallLoad(Channel channel, Criticality criticality, Duration deadline, long maxSeconds, boolean backToBack) {
    this.channel = channel;
    this.options = CallOptions.DEFAULT.withOption(BallastCalls.CRITICALITY, criticality);
    this.deadlineNanos = deadline.toNanos();
    this.endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
    this.tally = new Tally(deadlineNanos);
    this.backToBack = backToBack;
    timer.schedule(this::stop, maxSeconds, TimeUnit.SECONDS);
  }

  /** {@code callsPerSecond} calls a second, whatever the answers, for at most {@code maxSeconds}. */
  static CallLoad atRate(Channel channel, Criticality criticality, double callsPerSecond, Duration deadline, long maxSeconds) {
    CallLoad load = new CallLoad(channel, criticality, deadline, maxSeconds, false);
    long start = System.nanoTime();
    long[] sent = {0}; // the timer thread's only
    // Sends what is due by now at each tick, so that a late tick catches up and the rate holds on average.
    load.timer.scheduleAtFixedRate(() -> {
      long due = (long) (callsPerSecond * (System.nanoTime() - start) / 1e9);
      for (; sent[0] < due && !load.isStopped(); sent[0]++) {
        load.send();
      }
    }, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    return load;
  }

  /** {@code lanes} calls at a time, each lane sending its next call once the last ended, for at most {@code maxSeconds}. */
  static CallLoad backToBack(Channel channel, int lanes, Duration deadline, long maxSeconds) {
    CallLoad load = new CallLoad(channel, Criticality.DEFAULT, deadline, maxSeconds, true);
    for (int i = 0; i < lanes; i++) {
      load.send();
    }
    return load;
  }

  private void send() {
    Tally into;
    synchronized (this) {
      into = tally;
      into.sent();
    }
    CallOptions withDeadline = options.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS);
    ClientCalls.asyncUnaryCall(channel.newCall(Greeter.GREET, withDeadline), "hello", new StreamObserver<String>() {
      private String backend;

      @Override
      public void onNext(String value) {
        backend = value;
      }

      @Override
      public void onError(Throwable t) {
        ended(into, outcome(Status.fromThrowable(t), Status.trailersFromThrowable(t)));
      }

      @Override
      public void onCompleted() {
        firstServed.countDown();
        ended(into, backend);
      }
    });
  }

  private void ended(Tally into, String outcome) {
    into.ended(outcome);
    if (backToBack && !isStopped()) {
      send();
    }
  }

  /** How a failed call ended, as the client's output names it. */
  static String outcome(Status status, Metadata trailers) {
    if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
      if (trailers != null && "shed".equals(trailers.get(OVERLOAD))) {
        return "shed";
      }
      String description = status.getDescription();
      if (description != null && description.startsWith("ballast: throttled locally")) {
        return "throttled";
      }
    }
    return "failed: " + status.getCode();
  }

  /** Counts calls sent from now on in a new tally; returns the one they were counted in until now. */
  synchronized Tally nextTally() {
    Tally ended = tally;
    tally = new Tally(deadlineNanos);
    return ended;
  }

  /** Whether a call was served within the wait: the channel is connected. */
  boolean awaitServed(Duration wait) throws InterruptedException {
    return firstServed.await(wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  boolean isStopped() {
    return stopped.getCount() == 0 || System.nanoTime() >= endNanos;
  }

  private void stop() {
    stopped.countDown();
  }

  /** Stops sending; calls in flight end on their own (see {@link Tally#awaitEnded()}). */
  @Override
  public void close() {
    stop();
    timer.shutdownNow();
  }
}
