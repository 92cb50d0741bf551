package dev.ballast.cli;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A client of the replicated quota service as docs/quota.md tells a team to write one: it holds a
 * lease of "db" and refreshes it every refresh interval, reporting the lease it holds; it follows
 * an UNAVAILABLE answer's {@code ballast-quota-leader} trailer at once (three times in a row at the
 * most, then after a backoff), and goes to the next replica after any other failure. Every answer
 * goes to the {@link GrantLog}. Runs on a thread of its own until {@link #stop}.
 */
final class LeaseHolder implements Runnable {
  private static final long BACKOFF_MILLIS = 100;

  private final String id;
  private final double wants;
  private final List<ManagedChannel> replicas;
  private final List<String> addresses;
  private final GrantLog log;
  private final long deadlineMillis;
  private final Thread thread;
  private volatile boolean stopped;
  private int target;
  private long firstDeadlineMillis;
  private WireQuotaClient.Lease held;
  /** The first answer, once it came: for a request sent to a paused leader. */
  private volatile WireQuotaClient.Answer firstAnswer;
  private volatile int firstAnswerFrom = -1;

  /**
   * @param replicas a channel to each replica, in the order of {@code addresses}
   * @param firstTarget the replica the first request goes to
   * @param firstDeadlineMillis the first request's deadline (long, for one sent to a paused replica)
   * @param deadlineMillis every later request's
   */
  LeaseHolder(String id, double wants, List<ManagedChannel> replicas, List<String> addresses, GrantLog log, int firstTarget,
      long firstDeadlineMillis, long deadlineMillis) {
    this.id = id;
    this.wants = wants;
    this.replicas = replicas;
    this.addresses = addresses;
    this.log = log;
    this.target = firstTarget;
    this.firstDeadlineMillis = firstDeadlineMillis;
    this.deadlineMillis = deadlineMillis;
    this.thread = new Thread(this, "lease-holder-" + id);
    this.thread.setDaemon(true);
  }

  String id() {
    return id;
  }

  LeaseHolder start() {
    thread.start();
    return this;
  }

  /** The answer to the first request, null until it came. */
  WireQuotaClient.Answer firstAnswer() {
    return firstAnswer;
  }

  /** The replica that gave the first answer. */
  int firstAnswerFrom() {
    return firstAnswerFrom;
  }

  @Override
  public void run() {
    int redirects = 0;
    boolean first = true;
    while (!stopped) {
      long sent = System.nanoTime();
      if (first) {
        log.started(id, sent);
      }
      WireQuotaClient.Lease has = held != null && held.expiresAtNanos() - sent > 0 ? held : null;
      int to = target;
      WireQuotaClient.Answer answer = WireQuotaClient.getCapacity(replicas.get(to),
          WireQuotaClient.request(id, wants, has, sent), first ? firstDeadlineMillis : deadlineMillis);
      long received = System.nanoTime();
      if (first) {
        firstAnswerFrom = to;
        firstAnswer = answer;
        first = false;
      }
      log.answered();
      if (answer.ok()) {
        long ends = sent + TimeUnit.MILLISECONDS.toNanos(answer.expiresInMillis());
        held = new WireQuotaClient.Lease(answer.capacity(), ends);
        log.granted(new GrantLog.Grant(id, to, sent, received, answer.capacity(), ends, has != null));
        redirects = 0;
        pause(sent + TimeUnit.MILLISECONDS.toNanos(answer.refreshMillis()) - System.nanoTime());
        continue;
      }
      Status.Code code = answer.status().getCode();
      String description = answer.status().getDescription();
      if (description == null || !description.startsWith("ballast quota: ")) {
        // No answer from the service (a deadline, a transport that failed): it may have changed our lease.
        log.unanswered(id, sent);
      }
      int leader = answer.leader() == null ? -1 : addresses.indexOf(answer.leader());
      if (code == Status.Code.UNAVAILABLE && leader >= 0 && leader != to && redirects < 3) {
        target = leader;
        redirects++;
        continue;
      }
      redirects = 0;
      target = leader >= 0 && leader != to ? leader : (to + 1) % replicas.size();
      pause(TimeUnit.MILLISECONDS.toNanos(BACKOFF_MILLIS));
    }
  }

  /** The client's refresh schedule and backoff: it waits as a client does, not for a test. */
  private void pause(long nanos) {
    if (nanos > 0 && !stopped) {
      try {
        TimeUnit.NANOSECONDS.sleep(nanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopped = true;
      }
    }
  }

  /** Stops refreshing, releases the client's lease at the replica it last asked (best effort) and logs that it holds nothing. */
  void stop() throws InterruptedException {
    stopped = true;
    thread.interrupt();
    thread.join(TimeUnit.MINUTES.toMillis(1));
    log.stopped(id, System.nanoTime());
    try {
      ClientCalls.blockingUnaryCall(replicas.get(target), WireQuotaClient.RELEASE_CAPACITY,
          CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS), WireQuotaClient.release(id));
    } catch (RuntimeException e) {
      // best effort: the lease ends by itself
    }
  }
}
