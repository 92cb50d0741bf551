package dev.ballast.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * Every lease the quota replicas granted the test's clients, and when, on the test's monotonic
 * clock: what the bound of docs/quota.md is checked against. A client's holding is a step function
 * of time, from its answers alone:
 *
 * <ul>
 *   <li>a lease counts from when its answer arrived until it ends (counted from when its request
 *       was sent, as a client counts it); a lease lower than what the client held counts from when
 *       its request was sent, since the server may have lowered the client in its ledger from
 *       then on, but a client in S stays in S until the answer arrives, since until then it
 *       holds what put it there;
 *   <li>a call that went unanswered (a deadline, a broken connection) may have changed the
 *       client's lease in the server's ledger to anything the server chose, so the client counts
 *       as holding nothing from that call's sending to its next answer: the check counts grants
 *       that surely happened, and finds every excess that lasts longer than a round trip;
 *   <li>a client with no lease in force (none yet, or its lease ended) holds its safe capacity,
 *       and a stopped client nothing.
 * </ul>
 *
 * The bound at an instant is {@code C + safe x k}, {@code k} the clients that hold their safe
 * capacity, or a lease that a leader may have granted while it learned, to a request that reported
 * none or as the renewal of such a lease (a learning leader grants at most what a client reports):
 * the restart bound {@code C + S}, where S is what a learning leader grants clients that held no
 * lease. Whether a leader may have been learning when it answered is told by {@code mayBeLearning},
 * from what the replicas log.
 */
final class GrantLog {
  private final double capacity;
  private final double safe;
  private final Map<String, List<Step>> clients = new LinkedHashMap<>();
  private final Map<String, Step> lastLease = new LinkedHashMap<>();
  private final List<Grant> grants = new ArrayList<>();

  /**
   * An answered request.
   *
   * @param replica the replica that granted it
   * @param sentNanos when its request was sent
   * @param receivedNanos when the answer arrived
   * @param reported whether the request reported a lease held
   */
  record Grant(String client, int replica, long sentNanos, long receivedNanos, double capacity, long endsAtNanos, boolean reported) {}

  /** From {@code atNanos} the client holds {@code value} (NaN: its safe capacity), counted in S if {@code inS}. */
  private record Step(long atNanos, double value, boolean inS, long endsAtNanos) {}

  private final BiPredicate<Integer, Long> mayBeLearning;

  /**
   * @param mayBeLearning whether a replica may have been learning when it answered a request sent
   *     at an instant; true errs toward a looser bound, never toward a false excess
   */
  GrantLog(double capacity, double safe, BiPredicate<Integer, Long> mayBeLearning) {
    this.capacity = capacity;
    this.safe = safe;
    this.mayBeLearning = mayBeLearning;
  }

  /** The client sent its first request: it holds its safe capacity until a lease arrives. */
  synchronized void started(String client, long atNanos) {
    clients.computeIfAbsent(client, c -> new ArrayList<>()).add(new Step(atNanos, Double.NaN, true, Long.MAX_VALUE));
  }

  synchronized void granted(Grant grant) {
    grants.add(grant);
    List<Step> steps = clients.computeIfAbsent(grant.client(), c -> new ArrayList<>());
    Step previous = steps.isEmpty() ? null : steps.get(steps.size() - 1);
    double before = previous == null ? 0 : valueAt(previous, grant.sentNanos());
    long from = grant.capacity() <= before ? grant.sentNanos() : grant.receivedNanos();
    // The lease the request reported is the client's last grant: a renewal no larger than it keeps its place in S.
    Step reported = lastLease.get(grant.client());
    boolean inS = mayBeLearning.test(grant.replica(), grant.sentNanos())
        && (!grant.reported() || reported != null && reported.inS() && grant.capacity() <= reported.value());
    Step lease = new Step(from, grant.capacity(), inS, grant.endsAtNanos());
    if (from != grant.receivedNanos() && previous != null && inSAt(previous, grant.sentNanos()) && !inS) {
      // Counted lower from the sending, the client still holds what it held until the answer
      // lands: its safe capacity, or a learning leader's grant. It stays in S until then.
      steps.add(new Step(from, grant.capacity(), true, grant.endsAtNanos()));
      lease = new Step(grant.receivedNanos(), grant.capacity(), false, grant.endsAtNanos());
    }
    steps.add(lease);
    lastLease.put(grant.client(), lease);
    notifyAll();
  }

  /** A client got an answer that changes nothing it holds (a refusal): wakes those who wait on the log. */
  synchronized void answered() {
    notifyAll();
  }

  /** A call of the client went unanswered: the server may have changed its lease to anything. */
  synchronized void unanswered(String client, long sentNanos) {
    clients.computeIfAbsent(client, c -> new ArrayList<>()).add(new Step(sentNanos, 0, false, Long.MAX_VALUE));
  }

  /** The client stopped, having released its leases: it holds nothing from now on. */
  synchronized void stopped(String client, long atNanos) {
    clients.computeIfAbsent(client, c -> new ArrayList<>()).add(new Step(atNanos, 0, false, Long.MAX_VALUE));
  }

  /** Whether the step is the client's safe capacity at the instant: none granted yet, or its lease ended. */
  private static boolean onSafeCapacity(Step step, long atNanos) {
    return Double.isNaN(step.value()) || atNanos - step.endsAtNanos() >= 0;
  }

  private double valueAt(Step step, long atNanos) {
    return onSafeCapacity(step, atNanos) ? safe : step.value();
  }

  private static boolean inSAt(Step step, long atNanos) {
    return onSafeCapacity(step, atNanos) || step.inS();
  }

  /** The clients' holdings, the bound and the excess at an instant. */
  record Look(long atNanos, double held, double bound, int inS, Map<String, Double> byClient) {
    double excess() {
      return held - bound;
    }
  }

  /** The look at {@code atNanos}. */
  synchronized Look lookAt(long atNanos) {
    double held = 0;
    int k = 0;
    Map<String, Double> byClient = new LinkedHashMap<>();
    for (Map.Entry<String, List<Step>> client : clients.entrySet()) {
      Step step = stepAt(client.getValue(), atNanos);
      if (step == null) {
        continue;
      }
      double value = valueAt(step, atNanos);
      held += value;
      boolean inS = inSAt(step, atNanos);
      k += inS ? 1 : 0;
      byClient.put(client.getKey() + (inS ? " (in S)" : ""), value);
    }
    return new Look(atNanos, held, capacity + safe * k, k, byClient);
  }

  private static Step stepAt(List<Step> steps, long atNanos) {
    Step found = null;
    for (Step step : steps) {
      if (step.atNanos() - atNanos <= 0) {
        found = step;
      }
    }
    return found;
  }

  /**
   * The look with the largest excess over the bound, and the look with the most held, among the
   * instants in [from, to) where some client's holding changes.
   */
  synchronized Look[] worst(long fromNanos, long toNanos) {
    TreeSet<Long> instants = new TreeSet<>();
    instants.add(fromNanos);
    for (List<Step> steps : clients.values()) {
      for (Step step : steps) {
        instants.add(step.atNanos());
        if (step.endsAtNanos() != Long.MAX_VALUE) {
          instants.add(step.endsAtNanos());
        }
      }
    }
    Look worstExcess = lookAt(fromNanos);
    Look most = worstExcess;
    for (long at : instants.subSet(fromNanos, toNanos)) {
      Look look = lookAt(at);
      if (look.excess() > worstExcess.excess()) {
        worstExcess = look;
      }
      if (look.held() > most.held()) {
        most = look;
      }
    }
    return new Look[] {worstExcess, most};
  }

  /** The grants by {@code replica} whose answer arrived in [from, to). */
  synchronized List<Grant> grantsBy(int replica, long fromNanos, long toNanos) {
    return grants(g -> g.replica() == replica && g.receivedNanos() - fromNanos >= 0 && g.receivedNanos() - toNanos < 0);
  }

  /** The grants that {@code which} selects, in the order they arrived. */
  synchronized List<Grant> grants(java.util.function.Predicate<Grant> which) {
    return grants.stream().filter(which).toList();
  }

  /** The client's latest grant; null if none. */
  synchronized Grant latest(String client) {
    return grants.stream().filter(g -> g.client().equals(client)).max(Comparator.comparingLong(Grant::receivedNanos)).orElse(null);
  }

  /** Waits, on this log's changes, until {@code done} holds; false after {@code timeoutNanos}. */
  synchronized boolean await(java.util.function.BooleanSupplier done, long timeoutNanos) throws InterruptedException {
    long giveUp = System.nanoTime() + timeoutNanos;
    while (!done.getAsBoolean()) {
      long left = giveUp - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Every grant, one a line, times in seconds from {@code originNanos}: the record a run leaves. */
  synchronized List<String> lines(long originNanos) {
    List<String> text = new ArrayList<>();
    for (Grant g : grants) {
      text.add(String.format(Locale.ROOT, "%s from replica %d: %.3f sent %.3f s, received %.3f s, ends %.3f s%s", g.client(),
          g.replica(), g.capacity(), (g.sentNanos() - originNanos) / 1e9, (g.receivedNanos() - originNanos) / 1e9,
          (g.endsAtNanos() - originNanos) / 1e9, g.reported() ? "" : " (reported no lease)"));
    }
    return text;
  }

  /** The grants around an instant, for a failure's message. */
  synchronized String around(long atNanos, long originNanos) {
    StringBuilder text = new StringBuilder();
    for (Grant g : grants) {
      if (Math.abs(g.receivedNanos() - atNanos) < 6_000_000_000L) {
        text.append(String.format(Locale.ROOT, "  %s from replica %d: %.3f sent %.3f s, received %.3f s, ends %.3f s%s%n", g.client(),
            g.replica(), g.capacity(), (g.sentNanos() - originNanos) / 1e9, (g.receivedNanos() - originNanos) / 1e9,
            (g.endsAtNanos() - originNanos) / 1e9, g.reported() ? "" : " (reported no lease)"));
      }
    }
    return text.toString();
  }
}
