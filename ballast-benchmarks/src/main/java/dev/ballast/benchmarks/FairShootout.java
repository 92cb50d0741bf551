package dev.ballast.benchmarks;

import com.netflix.concurrency.limits.grpc.server.GrpcServerLimiterBuilder;
import dev.ballast.benchmarks.LimiterShootout.Caller;
import dev.ballast.benchmarks.LimiterShootout.Contender;
import dev.ballast.benchmarks.LimiterShootout.Handler;
import dev.ballast.benchmarks.LimiterShootout.Protection;
import dev.ballast.benchmarks.LimiterShootout.Result;
import dev.ballast.benchmarks.LimiterShootout.Run;
import dev.ballast.grpc.BallastServer;
import dev.ballast.overload.FairAdmissionConfig;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two callers on {@link LimiterShootout}'s harness: caller "quiet" and caller "noisy", which sends
 * 5 times quiet's rate, together 3 times what the server can serve (quiet 0.5N, noisy 2.5N). Each
 * call carries its caller's id in the {@code ballast-caller} header. How much of each caller's
 * demand is served within the deadline, with the same handlers, against:
 *
 * <ul>
 *   <li>Ballast's server with fair admission (its default) and with fair admission off;
 *   <li>Netflix concurrency-limits' interceptor (Gradient2) partitioned by that header, with the
 *       partitions a user would give two callers of equal standing (50% / 50%), and with partitions
 *       in proportion to the callers' demands (17% / 83%);
 *   <li>concurrency-limits without partitions.
 * </ul>
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar dev.ballast.benchmarks.FairShootout
 * [seconds] [rounds]}. Loopback only; every run is bounded by its duration.
 */
public final class FairShootout {
  /** The callers: quiet sends 1 call of every 6, noisy 5. */
  static final List<Caller> CALLERS = List.of(new Caller("quiet", 1), new Caller("noisy", 5));

  /** The servers compared: how each admits calls. */
  public enum Admission implements Contender {
    /** Ballast's default limiter with fair admission as it comes: on, both callers of weight 1. */
    BALLAST_FAIR("Ballast, fair admission (default)", FairAdmissionConfig.defaults(), Map.of()),
    /** Ballast's default limiter, fair admission off: one limit for every call. */
    BALLAST_UNFAIR("Ballast, fair admission off", FairAdmissionConfig.disabled(), Map.of()),
    /** concurrency-limits' Gradient2, partitioned by the caller header, half the limit each. */
    NETFLIX_EVEN_PARTITIONS("concurrency-limits, partitions 50% / 50%", null, partitions(0.5, 0.5)),
    /** concurrency-limits' Gradient2, partitioned by the caller header in proportion to the demands (1:5). */
    NETFLIX_DEMAND_PARTITIONS("concurrency-limits, partitions 17% / 83%", null, partitions(0.17, 0.83)),
    /** concurrency-limits' Gradient2 as the shoot-out runs it, with no partitions. */
    NETFLIX_UNPARTITIONED("concurrency-limits, no partitions", null, Map.of());

    private final String label;
    private final FairAdmissionConfig fairAdmission;
    private final Map<String, Double> partitions;

    Admission(String label, FairAdmissionConfig fairAdmission, Map<String, Double> partitions) {
      this.label = label;
      this.fairAdmission = fairAdmission;
      this.partitions = partitions;
    }

    /** Ballast's fair admission settings; null for concurrency-limits. */
    FairAdmissionConfig fairAdmission() {
      return fairAdmission;
    }

    /** concurrency-limits' partitions, caller id to its share of the limit; empty for none. */
    Map<String, Double> partitions() {
      return partitions;
    }

    /** concurrency-limits' limiter: partitioned by the caller header where it has partitions. */
    GrpcServerLimiterBuilder netflixLimiter() {
      GrpcServerLimiterBuilder limiter = new GrpcServerLimiterBuilder();
      if (!partitions.isEmpty()) {
        limiter.partitionByHeader(LimiterShootout.CALLER_HEADER);
        partitions.forEach(limiter::partition);
      }
      return limiter;
    }

    @Override
    public String label() {
      return label;
    }

    @Override
    public Server start(NettyServerBuilder server, ServerServiceDefinition service) throws IOException {
      if (fairAdmission == null) {
        return LimiterShootout.netflix(netflixLimiter(), server, service);
      }
      // The shoot-out's default limiter; the caller header is believed, as CriticalityTrust.all()
      // (the default) does.
      return LimiterShootout.ballast(BallastServer.builder()
          .adaptiveLimiter(Protection.BALLAST_DEFAULT.limiter())
          .fairAdmission(fairAdmission), server, service);
    }

    private static Map<String, Double> partitions(double quiet, double noisy) {
      Map<String, Double> partitions = new LinkedHashMap<>();
      partitions.put(CALLERS.get(0).id(), quiet);
      partitions.put(CALLERS.get(1).id(), noisy);
      return partitions;
    }
  }

  private FairShootout() {}

  /** One run's row: one caller's figures. */
  static String row(Result result, int round) {
    return String.format(Locale.ROOT, "| %s | %s | %d | %s | %d | %.0f/s | %.1f%% | %.1f%% | %d | %d | %d | %s | %s |",
        result.handler().label, result.protection().label(), round, result.caller().label(), result.sent(),
        result.goodputPerSecond(), 100 * result.demandShare(), 100 * result.goodputShare(), result.overloaded(),
        result.deadlineMisses(), result.otherErrors(), LimiterShootout.millis(result.p50Millis()),
        LimiterShootout.millis(result.p99Millis()));
  }

  /**
   * One row per handler, server and caller over all rounds, in the order first met: the least,
   * median and most of the caller's goodput as a share of its demand and of N, of its sheds and of
   * its p99.
   */
  static List<String> summary(List<Result> results) {
    List<String> rows = new ArrayList<>();
    rows.add("| handler | server | caller | rounds | goodput, share of its demand: least, median, most"
        + " | share of N: least, median, most | shed: least, median, most | p99 ms: least, median, most |");
    rows.add("| --- | --- | --- | --- | --- | --- | --- | --- |");
    Map<List<Object>, List<Result>> groups = new LinkedHashMap<>();
    for (Result result : results) {
      groups.computeIfAbsent(List.of(result.handler(), result.protection(), result.caller()), k -> new ArrayList<>())
          .add(result);
    }
    for (List<Result> mine : groups.values()) {
      Result first = mine.get(0);
      double[] ofDemand = mine.stream().mapToDouble(r -> 100 * r.demandShare()).toArray();
      double[] ofCapacity = mine.stream().mapToDouble(r -> 100 * r.goodputShare()).toArray();
      double[] shed = mine.stream().mapToDouble(Result::overloaded).toArray();
      double[] p99s = mine.stream().mapToDouble(Result::p99Millis).filter(p -> !Double.isNaN(p)).toArray();
      rows.add(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s | %s | %s | %s |", first.handler().label,
          first.protection().label(), first.caller().label(), mine.size(), LimiterShootout.spread(ofDemand, "%.1f%%"),
          LimiterShootout.spread(ofCapacity, "%.1f%%"), LimiterShootout.spread(shed, "%.0f"),
          p99s.length == 0 ? "- (no call succeeded)" : LimiterShootout.spread(p99s, "%.1f")));
    }
    return rows;
  }

  /**
   * Runs every server with both handlers, {@code rounds} times, and prints each run's rows and the
   * summary.
   *
   * @param args {@code [seconds measured, 1..600, default 10] [rounds, 1..20, default 3]}
   * @throws Exception if a server cannot start
   */
  public static void main(String[] args) throws Exception {
    Run run = Run.parseOrExit(args, 3);
    LimiterShootout.printSettings(run, ", 1 call of 6 from caller quiet and 5 from caller noisy");
    System.out.println("| handler | server | round | caller | sent | goodput | of its demand | of N | shed"
        + " | deadline misses | other errors | p50 ms | p99 ms |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    List<Result> results = new ArrayList<>();
    for (int round = 1; round <= run.rounds(); round++) {
      for (Handler handler : Handler.values()) {
        for (Admission server : Admission.values()) {
          for (Result result : LimiterShootout.run(server, LimiterShootout.defaults(handler, run.measureMillis()),
              CALLERS)) {
            results.add(result);
            System.out.println(row(result, round));
          }
        }
      }
    }
    System.out.println();
    summary(results).forEach(System.out::println);
  }
}
