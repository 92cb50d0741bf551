package dev.ballast.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.concurrency.limits.limiter.AbstractPartitionedLimiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.ballast.benchmarks.FairShootout.Admission;
import dev.ballast.benchmarks.LimiterShootout.Caller;
import dev.ballast.benchmarks.LimiterShootout.Contender;
import dev.ballast.benchmarks.LimiterShootout.Handler;
import dev.ballast.benchmarks.LimiterShootout.Result;
import dev.ballast.benchmarks.LimiterShootout.Run;
import dev.ballast.benchmarks.LimiterShootout.Settings;
import dev.ballast.overload.FairAdmissionConfig;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The fair shoot-out's own code: what each server runs, how the load is split between the callers
 * and how each caller's calls are counted, and that a short run of a real server sees every call
 * with its caller's header. Its figures are wall-clock measurements on loopback, published in
 * docs/benchmarks.md with their command; nothing here asserts a rate, a share or a latency.
 */
final class FairShootoutTest {
  private static final long MS = 1_000_000;

  @Test
  void quietSendsOneCallInSixAndNoisyFiveHalfAndTwoAndAHalfTimesN() {
    assertThat(FairShootout.CALLERS).extracting(Caller::id).containsExactly("quiet", "noisy");
    int[] sent = new int[2];
    for (long id = 0; id < 600; id++) {
      sent[LimiterShootout.callerOf(id, FairShootout.CALLERS)]++;
    }
    assertThat(sent).containsExactly(100, 500);
    // Every 6 calls in a row, wherever they start, hold one of quiet's.
    for (long from = 0; from < 12; from++) {
      int quiet = 0;
      for (long id = from; id < from + 6; id++) {
        quiet += LimiterShootout.callerOf(id, FairShootout.CALLERS) == 0 ? 1 : 0;
      }
      assertThat(quiet).as("from %d", from).isEqualTo(1);
    }
    // Offered 3N in all: quiet 0.5N, noisy 2.5N.
    Settings settings = LimiterShootout.defaults(Handler.WAITING, 10_000);
    assertThat(settings.offered() / 6).isEqualTo(0.5);
    assertThat(settings.offered() * 5 / 6).isEqualTo(2.5);
  }

  @Test
  void theAnonymousCallerTakesEveryCall() {
    for (long id = 0; id < 10; id++) {
      assertThat(LimiterShootout.callerOf(id, List.of(Caller.ANONYMOUS))).isZero();
    }
    assertThat(Caller.ANONYMOUS.label()).isEqualTo("all");
    assertThatThrownBy(() -> new Caller("x", 0)).hasMessageContaining("parts: 0");
  }

  @Test
  void ballastRunsFairAdmissionAsItComesAndOff() {
    assertThat(Admission.BALLAST_FAIR.fairAdmission()).isEqualTo(FairAdmissionConfig.defaults());
    assertThat(Admission.BALLAST_FAIR.fairAdmission().enabled()).isTrue();
    assertThat(Admission.BALLAST_FAIR.fairAdmission().weightOf("quiet"))
        .isEqualTo(Admission.BALLAST_FAIR.fairAdmission().weightOf("noisy"));
    assertThat(Admission.BALLAST_UNFAIR.fairAdmission().enabled()).isFalse();
    assertThat(Admission.BALLAST_FAIR.partitions()).isEmpty();
    assertThat(Admission.BALLAST_UNFAIR.partitions()).isEmpty();
  }

  @Test
  void concurrencyLimitsIsPartitionedByTheCallersEvenlyOrByDemandOrNotAtAll() {
    assertThat(Admission.NETFLIX_EVEN_PARTITIONS.partitions()).isEqualTo(Map.of("quiet", 0.5, "noisy", 0.5));
    assertThat(Admission.NETFLIX_DEMAND_PARTITIONS.partitions()).isEqualTo(Map.of("quiet", 0.17, "noisy", 0.83));
    assertThat(Admission.NETFLIX_UNPARTITIONED.partitions()).isEmpty();
    for (Admission admission : List.of(Admission.NETFLIX_EVEN_PARTITIONS, Admission.NETFLIX_DEMAND_PARTITIONS,
        Admission.NETFLIX_UNPARTITIONED)) {
      assertThat(admission.fairAdmission()).as("%s", admission).isNull();
    }
    // The library's own partitioned limiter (it checks that the shares add up to at most 100%);
    // without partitions, its plain one.
    assertThat(Admission.NETFLIX_EVEN_PARTITIONS.netflixLimiter().build()).isInstanceOf(AbstractPartitionedLimiter.class);
    assertThat(Admission.NETFLIX_DEMAND_PARTITIONS.netflixLimiter().build()).isInstanceOf(AbstractPartitionedLimiter.class);
    assertThat(Admission.NETFLIX_UNPARTITIONED.netflixLimiter().build()).isInstanceOf(SimpleLimiter.class);
  }

  @Test
  void eachCallersCallsAreCountedApartAgainstItsOwnDemandAndAgainstN() {
    Settings settings = new Settings(Handler.WAITING, 4, 20, 3.0, 4, 1000, 0, 2000);
    Caller quiet = FairShootout.CALLERS.get(0);
    // Quiet: 4 sent, 3 OK in time, 1 shed.
    Result result = LimiterShootout.tally(Admission.BALLAST_FAIR, settings, quiet,
        new long[] {10 * MS, 20 * MS, 30 * MS, MS}, new byte[] {1, 1, 1, 2});

    assertThat(result.caller()).isEqualTo(quiet);
    assertThat(result.protection()).isEqualTo(Admission.BALLAST_FAIR);
    assertThat(result.sent()).isEqualTo(4);
    assertThat(result.overloaded()).isEqualTo(1);
    assertThat(result.demandShare()).isEqualTo(0.75);
    // 3 calls in 2 s against N = 200/s.
    assertThat(result.goodputShare()).isEqualTo(1.5 / 200);
    assertThat(FairShootout.row(result, 2))
        .isEqualTo("| waits | Ballast, fair admission (default) | 2 | quiet | 4 | 2/s | 75.0% | 0.8% | 1 | 0 | 0 | 20.0 | 30.0 |");
  }

  @Test
  void aCallerThatSentNothingServedNoneOfItsDemand() {
    Settings settings = new Settings(Handler.WAITING, 4, 20, 3.0, 4, 1000, 0, 1000);
    Result result = LimiterShootout.tally(Admission.BALLAST_FAIR, settings, FairShootout.CALLERS.get(0),
        new long[0], new byte[0]);
    assertThat(result.demandShare()).isZero();
  }

  @Test
  void theSummaryHasARowPerHandlerServerAndCallerOverItsRounds() {
    Settings settings = new Settings(Handler.COMPUTING, 2, 10, 3.0, 4, 1000, 0, 1000);
    Caller quiet = FairShootout.CALLERS.get(0);
    Caller noisy = FairShootout.CALLERS.get(1);
    List<Result> results = List.of(
        allOk(settings, Admission.BALLAST_FAIR, quiet, 100, 0),
        allOk(settings, Admission.BALLAST_FAIR, noisy, 90, 410),
        allOk(settings, Admission.BALLAST_FAIR, quiet, 98, 2),
        allOk(settings, Admission.BALLAST_FAIR, noisy, 100, 400),
        allOk(settings, Admission.NETFLIX_EVEN_PARTITIONS, quiet, 50, 50));

    assertThat(FairShootout.summary(results)).containsExactly(
        "| handler | server | caller | rounds | goodput, share of its demand: least, median, most"
            + " | share of N: least, median, most | shed: least, median, most | p99 ms: least, median, most |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        "| computes | Ballast, fair admission (default) | quiet | 2 | 98.0%, 99.0%, 100.0% | 49.0%, 49.5%, 50.0%"
            + " | 0, 1, 2 | 5.0, 5.0, 5.0 |",
        "| computes | Ballast, fair admission (default) | noisy | 2 | 18.0%, 19.0%, 20.0% | 45.0%, 47.5%, 50.0%"
            + " | 400, 405, 410 | 5.0, 5.0, 5.0 |",
        "| computes | concurrency-limits, partitions 50% / 50% | quiet | 1 | 50.0%, 50.0%, 50.0% | 25.0%, 25.0%, 25.0%"
            + " | 50, 50, 50 | 5.0, 5.0, 5.0 |");
  }

  /** {@code ok} calls answered OK in 5 ms and {@code shed} shed, in 1 s. */
  private static Result allOk(Settings settings, Contender contender, Caller caller, int ok, int shed) {
    long[] latency = new long[ok + shed];
    byte[] outcome = new byte[ok + shed];
    for (int i = 0; i < ok + shed; i++) {
      latency[i] = 5 * MS;
      outcome[i] = (byte) (i < ok ? 1 : 2);
    }
    return LimiterShootout.tally(contender, settings, caller, latency, outcome);
  }

  @Test
  void theCommandLineNamesTheOffendingValueAndWhatWasExpected() {
    assertThat(Run.parse(new String[0], 3)).isEqualTo(new Run(10, 3));
    assertThat(Run.parse(new String[] {"5", "2"}, 3)).isEqualTo(new Run(5, 2));
    assertThatThrownBy(() -> Run.parse(new String[] {"ten"}, 3))
        .hasMessage("seconds: 'ten' (expected: a whole number 1..600)");
    assertThatThrownBy(() -> Run.parse(new String[] {"5", "0"}, 3))
        .hasMessage("rounds: '0' (expected: a whole number 1..20)");
    assertThatThrownBy(() -> Run.parse(new String[] {"x".repeat(100)}, 3))
        .hasMessage("seconds: '" + "x".repeat(32) + "...' of 100 characters (expected: a whole number 1..600)");
    assertThatThrownBy(() -> Run.parse(new String[] {"5", "2", "more"}, 3))
        .hasMessage("too many arguments: 'more' after the rounds (expected: [seconds] [rounds])");
  }

  @Test
  void aShortRunOfEveryServerReportsEveryCallOfEachCallerAndTheServerSeesItsHeader() throws Exception {
    for (Admission admission : Admission.values()) {
      Map<String, LongAdder> seen = new ConcurrentHashMap<>();
      Contender counting = new Contender() {
        @Override
        public String label() {
          return admission.label();
        }

        @Override
        public Server start(NettyServerBuilder server, ServerServiceDefinition service) throws IOException {
          // Outside the contender's own limiter: every call that reaches the server.
          return admission.start(server, ServerInterceptors.intercept(service, new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                ServerCallHandler<Q, A> next) {
              String caller = headers.get(LimiterShootout.CALLER_HEADER);
              seen.computeIfAbsent(caller == null ? "none" : caller, k -> new LongAdder()).increment();
              return next.startCall(call, headers);
            }
          }));
        }
      };
      // 300 ms of calls at 600/s with a 100 ms deadline, nothing left out as warm-up.
      Settings settings = new Settings(Handler.WAITING, 2, 10, 3.0, 2, 100, 0, 300);
      List<Result> results = LimiterShootout.run(counting, settings, FairShootout.CALLERS);

      assertThat(results).extracting(Result::caller).containsExactlyElementsOf(FairShootout.CALLERS);
      for (Result result : results) {
        assertThat(result.sent()).as("%s", result).isPositive();
        assertThat(result.ok() + result.overloaded() + result.deadlineMisses() + result.otherErrors())
            .as("%s", result).isEqualTo(result.sent());
      }
      // The calls go round the callers' parts from the first: quiet sent the first of every 6.
      long sent = results.get(0).sent() + results.get(1).sent();
      assertThat(results.get(0).sent()).as("%s", results).isEqualTo((sent + 5) / 6);
      // Every call the handler ran carried its caller's header.
      assertThat(seen).as("%s", admission).isNotEmpty();
      assertThat(seen.keySet()).as("%s", admission).isSubsetOf("quiet", "noisy");
    }
  }
}
