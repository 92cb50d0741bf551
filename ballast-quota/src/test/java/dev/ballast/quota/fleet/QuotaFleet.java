package dev.ballast.quota.fleet;

import dev.ballast.overload.Backoff;
import dev.ballast.quota.MaxMinAllocator;
import dev.ballast.quota.QuotaClient;
import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceConfig;
import dev.ballast.quota.ResourceQuota;
import dev.ballast.time.NanoClock;
import io.grpc.Channel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The quota fleet of docs/quota.md: one quota server shares the resource "db" (capacity 1000/s,
 * safe capacity 40/s, about capacity / clients; lease 3 s, refresh 1 s) among 24 clients with
 * unequal demands, four of them weighted 2. Each client has its own {@link QuotaClient} and
 * channel; its calls arrive evenly at its demand and go out when its lease's bucket (burst 20)
 * admits them. The timeline, in seconds from the start of the load (once every client holds its
 * first lease):
 *
 * <ul>
 *   <li>0..12 demands A; at 12 demands B, which move most clients' shares;
 *   <li>at 22 the quota server is killed and at 23 a new one starts, learning: an outage shorter
 *       than the leases;
 *   <li>at 32 it is killed again and at 36 restarted, learning until 39: an outage longer than the
 *       leases, so every client falls back to the safe capacity and the new server learns from
 *       nothing;
 *   <li>the load stops at 45.
 * </ul>
 *
 * <p>{@link #run} plays the timeline in an {@link Environment}: virtual time and gRPC's in-process
 * transport for ballast-quota's test, the wall clock and loopback for ballast-benchmarks'
 * measurement. Both get the same {@link FleetRecord}.
 */
public final class QuotaFleet {
  public static final String RESOURCE = "db";
  public static final double CAPACITY = 1000;
  public static final double SAFE_CAPACITY = 40;
  public static final Duration LEASE = Duration.ofSeconds(3);
  public static final Duration REFRESH = Duration.ofSeconds(1);
  public static final int CLIENTS = 24;
  public static final long BURST = 20;
  public static final Duration RPC_TIMEOUT = Duration.ofMillis(500);
  public static final Backoff BACKOFF = Backoff.builder().initial(Duration.ofMillis(50)).multiplier(2).cap(Duration.ofMillis(400)).build();

  /** Seconds from the start of the load. */
  public static final double DEMANDS_CHANGE = 12;
  public static final double SHORT_OUTAGE_START = 22;
  public static final double SHORT_OUTAGE_END = 23;
  public static final double LONG_OUTAGE_START = 32;
  public static final double LONG_OUTAGE_END = 36;
  public static final double END = 45;

  /** A stretch of the timeline, [from, to) seconds, with what it shows. */
  public record Window(String label, double from, double to) {}

  /**
   * Where the global rate is held to the capacity, or to the restart bound: the two steady phases,
   * then each outage with the ten seconds it starts.
   */
  public static final List<Window> GLOBAL_WINDOWS = List.of(
      new Window("demands A", 2, 12),
      new Window("demands change at 12 s", 12, DEMANDS_CHANGE + 10),
      new Window("killed at 22 s, back at 23 s", SHORT_OUTAGE_START, SHORT_OUTAGE_START + 10),
      new Window("killed at 32 s, back at 36 s", LONG_OUTAGE_START, LONG_OUTAGE_START + 10));

  /**
   * Where each client is held to its max-min share: from two refresh intervals (and a margin)
   * after each change, restart or end of learning.
   */
  public static final List<Window> SHARE_WINDOWS = List.of(
      new Window("demands A", 3, DEMANDS_CHANGE),
      new Window("demands B", 14.5, SHORT_OUTAGE_START),
      new Window("after the short outage", 25, LONG_OUTAGE_START),
      new Window("after the long outage and learning", 41, END));

  /** The load's tick: how often the fleet looks and offers calls, on its clock. */
  public static final long TICK_NANOS = Duration.ofMillis(5).toNanos();
  private static final long FIRST_LEASES_WITHIN_NANOS = Duration.ofSeconds(20).toNanos();

  private QuotaFleet() {}

  /** The time a fleet runs in: the clients' clock and executor, and how the run moves on. */
  public interface Time {
    /** The clock of the clients, their buckets and the quota servers. */
    NanoClock clock();

    /** Runs the clients' refreshes. */
    ScheduledExecutorService executor();

    /** Returns once the clock reads {@code nanoTime} or later, everything due by then having run. */
    void waitUntil(long nanoTime);

    /** What else a call the client's quota admitted does (on loopback: it goes to a real backend). */
    default void admitted(int client, int slot) {}
  }

  /** What differs between a run in virtual time and one on the wall clock. */
  public interface Environment extends Time {
    /** A new channel, for one client, to where {@link #startServer} serves: the same address at every restart. */
    Channel quotaChannel(int client);

    QuotaServer startServer(QuotaService service) throws IOException;
  }

  public static double[] demandsA() {
    double[] d = new double[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
      d[i] = 10 + 9 * i;
    }
    return d;
  }

  public static double[] demandsB() {
    double[] d = new double[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
      d[i] = 20 + ((i * 37) % CLIENTS) * 8;
    }
    return d;
  }

  /** The demands in force at {@code seconds}. */
  public static double[] demandsAt(double seconds) {
    return seconds < DEMANDS_CHANGE ? demandsA() : demandsB();
  }

  public static double[] weights() {
    double[] w = new double[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
      w[i] = i % 6 == 5 ? 2 : 1;
    }
    return w;
  }

  /** Each client's max-min share of the capacity under the demands in force at {@code seconds}. */
  public static double[] sharesAt(double seconds) {
    return MaxMinAllocator.allocate(CAPACITY, demandsAt(seconds), weights());
  }

  public static ResourceConfig resource() {
    return new ResourceConfig(RESOURCE, CAPACITY, SAFE_CAPACITY, LEASE, REFRESH);
  }

  /**
   * Plays the timeline and records it. The first server does not learn (no server ran before it);
   * every restart does. Returns when the load stops, with every client closed and the last server
   * killed.
   *
   * @throws IllegalStateException if some client holds no lease 20 s (of the environment's clock)
   *     after the first server started
   */
  public static FleetRecord run(Environment env) throws IOException, InterruptedException {
    NanoClock clock = env.clock();
    double[] demands = demandsA();
    QuotaService service = QuotaService.create(List.of(resource()), false, clock);
    QuotaServer server = env.startServer(service);
    List<QuotaClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(client(QuotaClient.builder(env.quotaChannel(i), "client-" + i), env, i));
      }
      List<ResourceQuota> quotas = startQuotas(clients, env);

      FleetRecord record = new FleetRecord();
      long start = clock.nanoTime();
      long previous = start;
      double[] owed = new double[CLIENTS];
      int done = 0; // events of the timeline done so far, in order
      for (long now = start; now - start < seconds(END); now = clock.nanoTime()) {
        double at = (now - start) / 1e9;
        if (done == 0 && at >= DEMANDS_CHANGE) {
          done++;
          demands = demandsB();
          for (int i = 0; i < CLIENTS; i++) {
            quotas.get(i).setWants(demands[i]);
          }
        }
        if ((done == 1 && at >= SHORT_OUTAGE_START) || (done == 3 && at >= LONG_OUTAGE_START)) {
          done++;
          server.kill();
          service = null;
        }
        if ((done == 2 && at >= SHORT_OUTAGE_END) || (done == 4 && at >= LONG_OUTAGE_END)) {
          done++;
          service = QuotaService.create(List.of(resource()), true, clock);
          server = env.startServer(service);
        }
        int slot = (int) ((now - start) / FleetRecord.SLOT_NANOS);
        record.look(slot, quotas, service);
        offer(demands, (now - previous) / 1e9, owed, quotas, record, slot, env);
        previous = now;
        env.waitUntil(now + TICK_NANOS);
      }
      return record;
    } finally {
      clients.forEach(QuotaClient::close);
      server.kill();
    }
  }

  /** Client {@code i}'s settings on the environment's clock and executor, seeded with {@code i}. */
  public static QuotaClient client(QuotaClient.Builder builder, Time env, int i) {
    return builder.executor(env.executor()).clock(env.clock()).rpcTimeout(RPC_TIMEOUT).backoff(BACKOFF).seed(i).build();
  }

  /**
   * Starts each client's quota of the resource, with demands A, its weight and the burst, and
   * returns once every one holds a lease.
   *
   * @throws IllegalStateException if some client holds no lease 20 s (of the environment's clock) later
   */
  public static List<ResourceQuota> startQuotas(List<QuotaClient> clients, Time env) {
    double[] demands = demandsA();
    double[] weights = weights();
    List<ResourceQuota> quotas = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      quotas.add(clients.get(i).resource(RESOURCE).wants(demands[i]).weight(weights[i]).burst(BURST).start());
    }
    long giveUp = env.clock().nanoTime() + FIRST_LEASES_WITHIN_NANOS;
    while (!quotas.stream().allMatch(q -> q.source() == ResourceQuota.Source.LEASE)) {
      if (env.clock().nanoTime() - giveUp >= 0) {
        throw new IllegalStateException("quota fleet: some client has no lease 20 s after the server started");
      }
      env.waitUntil(env.clock().nanoTime() + TICK_NANOS);
    }
    return quotas;
  }

  /**
   * The calls of {@code seconds} more of the load: each client's arrive evenly at its demand
   * ({@code owed} carries the fractions over) and go out if its quota admits them, counted in
   * {@code slot}.
   */
  public static void offer(double[] demands, double seconds, double[] owed, List<ResourceQuota> quotas, FleetRecord record,
      int slot, Time env) {
    for (int i = 0; i < CLIENTS; i++) {
      owed[i] += demands[i] * seconds;
      for (; owed[i] >= 1; owed[i] -= 1) {
        if (quotas.get(i).tryAcquire()) {
          record.admitted(i, slot);
          env.admitted(i, slot);
        }
      }
    }
  }

  private static long seconds(double seconds) {
    return Math.round(seconds * 1e9);
  }
}
