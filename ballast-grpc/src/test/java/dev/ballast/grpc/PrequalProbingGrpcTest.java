package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.testing.FakeScheduler;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code prequal_probing} end to end through gRPC: the real {@code ballast} policy sends its
 * probes on the channel's own subchannels, real {@link BallastServer}s answer them from their own
 * bookkeeping, and the picks follow the answers. It all runs in virtual time ({@link VirtualFleet}):
 * a backend's slowness is a service time of the test's choosing, not a sleep on a busy machine, so
 * every figure asserted here is the same on every run. What the same fleet does on loopback, in
 * real time, is measured by {@code PrequalLoopback} in ballast-benchmarks (docs/benchmarks.md).
 */
final class PrequalProbingGrpcTest {
  private static final int BACKENDS = 5;
  private static final Duration FAST = Duration.ofMillis(2);
  private static final Duration SLOW = Duration.ofMillis(20);
  /**
   * The mean round trip of a call or a probe: 1 ms, about a busy machine's loopback. {@code
   * -Dballast.test.roundTripMicros=N} runs the test with another (docs/benchmarks.md compares).
   */
  private static final Duration ROUND_TRIP =
      Duration.ofNanos(1000 * Long.getLong("ballast.test.roundTripMicros", 1000));
  private static final int CALLERS = 12;
  private static final int CALLS = 2400;
  private static final int SEEDS = 10;

  /** Records when, in virtual time, each probe reached one server. */
  private static final class ProbeArrivals implements ServerInterceptor {
    private final FakeScheduler time;
    final List<Long> arrivals = new ArrayList<>();

    ProbeArrivals(FakeScheduler time) {
      this.time = time;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      if (call.getMethodDescriptor().getServiceName().equals(ProbeGrpc.SERVICE_NAME)) {
        arrivals.add(time.clock().nanoTime());
      }
      return next.startCall(call, headers);
    }

    long count(long from, long to) {
      return arrivals.stream().filter(t -> t >= from && t <= to).count();
    }

    /** The longest stretch of [from, to] without a probe. */
    long longestGapNanos(long from, long to) {
      long previous = from;
      long longest = 0;
      for (long t : arrivals) {
        if (t >= from && t <= to) {
          longest = Math.max(longest, t - previous);
          previous = t;
        }
      }
      return Math.max(longest, to - previous);
    }
  }

  private VirtualFleet fleet;

  @AfterEach
  void closeFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  private record Run(double slowShare, long[] probes, long[] longestGapNanos, long virtualNanos) {}

  /**
   * Five Ballast backends, one of them ten times slower than the others (20 ms a call against
   * 2 ms), and 12 callers sending 2,400 calls back to back through one channel with
   * {@code prequal_probing}'s defaults, for each of ten seeds of the balancer's random choices.
   * Round robin would give the slow backend a fifth of the calls; {@code prequal_probing} must
   * give it at most half that, lose no call, probe every backend at least half as often as its due
   * (3 probes a pick over 5 backends) and never leave one unprobed for as long as an answer lives.
   */
  @Test
  void theSlowBackendGetsUnderHalfItsFairShareAndEveryBackendIsProbedWithinTheMaximumAge() throws Exception {
    PrequalProbingConfig defaults = PrequalProbingConfig.defaults();
    long due = (long) (CALLS * defaults.probesPerPick() / BACKENDS);
    for (long seed = 1; seed <= SEEDS; seed++) {
      Run run = runSlowBackendFleet(seed);
      System.out.printf("prequal_probing, seed %d: slow backend %.1f%% of %d calls (fair 20%%) in %.2f s of virtual"
              + " time; probes per backend %s, longest gap %.1f ms%n",
          seed, 100 * run.slowShare, CALLS, run.virtualNanos / 1e9, Arrays.toString(run.probes),
          Arrays.stream(run.longestGapNanos).max().orElse(0) / 1e6);
      String input = "seed " + seed;
      assertThat(run.slowShare).as(input).isLessThan(0.5 / BACKENDS);
      for (int i = 0; i < BACKENDS; i++) {
        assertThat(run.probes[i]).as("%s, probes at task-%d", input, i).isGreaterThanOrEqualTo(due / 2);
        assertThat(run.longestGapNanos[i]).as("%s, longest gap at task-%d", input, i)
            .isLessThan(defaults.maxAge().toNanos());
      }
    }
  }

  private Run runSlowBackendFleet(long seed) throws Exception {
    fleet = new VirtualFleet(seed, ROUND_TRIP);
    List<ProbeArrivals> arrivals = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      Duration serviceTime = i == 0 ? SLOW : FAST;
      ProbeArrivals probes = new ProbeArrivals(fleet.time);
      arrivals.add(probes);
      fleet.start(key -> fleet.answerAfter(key, serviceTime), b -> b.intercept(probes), BallastServer.builder());
    }
    ManagedChannel channel =
        fleet.channel(json("subsetAlgorithm", "rendezvous", "subsetSize", BACKENDS, "policy", "prequal_probing"));
    // Probes go only to backends that take requests: once each has had one, all are healthy.
    ClosedLoop warmUp = new ClosedLoop(channel, fleet.time, 1, Integer.MAX_VALUE);
    fleet.time.runUntil("every backend probed", () -> arrivals.stream().noneMatch(p -> p.arrivals.isEmpty()),
        Duration.ofMinutes(1));
    warmUp.stop();
    fleet.time.runUntil("the warm-up's last call answered", warmUp::done, Duration.ofMinutes(1));
    fleet.backends.forEach(TestBackend::resetCounts);

    long from = fleet.time.clock().nanoTime();
    ClosedLoop load = new ClosedLoop(channel, fleet.time, CALLERS, CALLS);
    fleet.time.runUntil("every call answered", load::done, Duration.ofMinutes(10));
    long to = fleet.time.clock().nanoTime();

    assertThat(load.failed).as("seed %d, failed calls", seed).isZero();
    long total = fleet.backends.stream().mapToLong(TestBackend::requests).sum();
    assertThat(total).as("seed %d, calls the backends served", seed).isEqualTo(CALLS);
    long[] probes = new long[BACKENDS];
    long[] gaps = new long[BACKENDS];
    for (int i = 0; i < BACKENDS; i++) {
      probes[i] = arrivals.get(i).count(from, to);
      gaps[i] = arrivals.get(i).longestGapNanos(from, to);
    }
    double share = (double) fleet.backends.get(0).requests() / total;
    fleet.close();
    fleet = null;
    return new Run(share, probes, gaps, to - from);
  }

  /**
   * One Ballast backend, holding one call of this client's, and one plain gRPC server, which
   * cannot answer probes. An idle probe's answer from the Ballast backend sends the next picks
   * there while it is younger than the maximum age, although the fallback would choose the other
   * backend (fewer of this client's calls in flight); once older, the answer is dropped and the
   * fallback decides. The reuse budget is large, so age alone ends the answer's use.
   */
  @Test
  void anAnswerServesPicksWhileFreshAndNoneOnceOlderThanTheMaximumAge() throws Exception {
    Duration maxAge = Duration.ofMillis(100);
    fleet = new VirtualFleet(1, ROUND_TRIP);
    List<StreamObserver<String>> held = new ArrayList<>();
    TestBackend probed = fleet.start(key -> (caller, response) -> {
      if (caller.equals("holder")) {
        held.add(response);
      } else {
        response.onNext(key);
        response.onCompleted();
      }
    }, b -> {}, BallastServer.builder());
    TestBackend plain = fleet.start(EchoService::answerWith, b -> {}, null);
    ManagedChannel channel = fleet.channel(json("subsetAlgorithm", "rendezvous", "subsetSize", 2,
        "policy", Map.of("prequal_probing", json("maxAge", "0.1s", "reuseBudget", 1000, "probesPerPick", 0,
            "idleProbeInterval", "1s"))));

    // Until the first idle probe the pool is empty: the fallback picks either backend while both
    // have nothing in flight; the plain one answers at once, the other holds the call.
    for (int i = 0; i < 50 && held.isEmpty(); i++) {
      answerOf(channel, "holder");
    }
    assertThat(held).as("calls held by the Ballast backend").hasSize(1);
    long answered = probed.ballast.probesAnswered();
    fleet.time.runUntil("an idle probe answered by the Ballast backend",
        () -> probed.ballast.probesAnswered() > answered, Duration.ofMinutes(1));
    // The answer reaches the pool a round trip later, at most one and a half.
    fleet.time.advance(ROUND_TRIP.multipliedBy(2));

    assertThat(answerOf(channel, "client")).as("the pick while the answer is fresh").isEqualTo(probed.key);
    assertThat(answerOf(channel, "client")).as("the next pick, within the reuse budget").isEqualTo(probed.key);
    fleet.time.advance(maxAge);
    assertThat(answerOf(channel, "client")).as("the pick once the answer is too old").isEqualTo(plain.key);
    assertThat(answerOf(channel, "client")).isEqualTo(plain.key);
    assertThat(probed.ballast.probesAnswered()).as("no newer answer came in between").isEqualTo(answered + 1);
  }

  /** Sends one call and runs virtual time until it ends: the key of the backend that answered. */
  private String answerOf(ManagedChannel channel, String caller) {
    String[] answer = new String[1];
    boolean[] ended = new boolean[1];
    ClientCalls.asyncUnaryCall(channel.newCall(EchoService.CALL, CallOptions.DEFAULT), caller,
        new StreamObserver<>() {
          @Override
          public void onNext(String backend) {
            answer[0] = backend;
          }

          @Override
          public void onError(Throwable t) {
            ended[0] = true;
          }

          @Override
          public void onCompleted() {
            ended[0] = true;
          }
        });
    if (caller.equals("holder")) {
      // A held call never ends; one that was answered has by the time its round trip is over.
      fleet.time.advance(ROUND_TRIP.multipliedBy(2));
      return answer[0];
    }
    fleet.time.runUntil("the call answered", () -> ended[0], Duration.ofSeconds(10));
    assertThat(answer[0]).as("the call's answer").isNotNull();
    return answer[0];
  }

  /**
   * Servers without Ballast answer probes UNIMPLEMENTED: every probe fails, the pool stays empty,
   * and every pick falls back to power of two choices on the client's own calls in flight.
   */
  @Test
  void backendsThatCannotAnswerProbesAreStillPickedThroughTheFallback() throws Exception {
    List<TestBackend> backends = new ArrayList<>();
    ManagedChannel channel = null;
    try {
      for (int i = 0; i < 3; i++) {
        backends.add(TestBackend.start(0, EchoService::answerWith));
      }
      String target = StaticResolverProvider.target(backends.stream().map(b -> b.port).toList());
      channel = Clients.ballast(target, json("subsetAlgorithm", "rendezvous", "subsetSize", 3, "policy", "prequal_probing"));

      for (int i = 0; i < 300; i++) {
        Clients.call(channel, "client");
      }

      assertThat(backends).allSatisfy(backend -> assertThat(backend.requests()).isPositive());
      assertThat(backends.stream().mapToLong(TestBackend::requests).sum()).isEqualTo(300);
    } finally {
      if (channel != null) {
        Clients.closeAll(List.of(channel));
      }
      backends.forEach(TestBackend::close);
    }
  }
}
