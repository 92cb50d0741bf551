package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.pick.PrequalProbingConfig;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code prequal_probing} end to end on loopback: real servers answer real probes on the
 * channel's own subchannels, and the picks follow the answers.
 */
final class PrequalProbingGrpcTest {
  private static final int BACKENDS = 5;
  private static final long FAST_MILLIS = 2;
  private static final long SLOW_MILLIS = 20;
  private static final int THREADS = 12;
  private static final int CALLS_PER_THREAD = 200;
  private static final int CALLS = THREADS * CALLS_PER_THREAD;
  /**
   * Longer than the default 500 ms: on the shared two-core machine a stall of the whole process
   * reached 440 ms, and the assertion on probe gaps is about Ballast, not the machine.
   */
  private static final Duration MAX_AGE = Duration.ofSeconds(1);

  /** Records when each probe arrived at one server. */
  private static final class ProbeClock implements ServerInterceptor {
    final ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      if (call.getMethodDescriptor().getServiceName().equals(ProbeRpc.SERVICE_NAME)) {
        arrivals.add(System.nanoTime());
      }
      return next.startCall(call, headers);
    }

    /** Probes that arrived in [from, to]. */
    long count(long from, long to) {
      return arrivals.stream().filter(t -> t >= from && t <= to).count();
    }

    /** The longest stretch of [from, to] without a probe. */
    long longestGapNanos(long from, long to) {
      long previous = from;
      long longest = 0;
      for (long t : arrivals.stream().filter(t -> t >= from && t <= to).sorted().toList()) {
        longest = Math.max(longest, t - previous);
        previous = t;
      }
      return Math.max(longest, to - previous);
    }
  }

  private final List<TestBackend> backends = new ArrayList<>();
  private ManagedChannel channel;

  @AfterEach
  void closeChannelAndBackends() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    backends.forEach(TestBackend::close);
  }

  private static EchoService.Behaviour sleeping(String key, long millis) {
    return (caller, response) -> {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      response.onNext(key);
      response.onCompleted();
    };
  }

  /**
   * Five backends, one of them ten times slower (a handler sleeping 20 ms against 2 ms), and 12
   * threads sending 2,400 calls through one channel with prequal_probing's defaults but for the
   * maximum age. Round robin would give the slow backend 20% of them; prequal_probing gave it
   * 9.8% to 11.7% over five runs with the defaults of 3 probes per pick and one pick per answer
   * (7.5% to 10.1% over nine runs with the earlier 2 and 2) on the project's shared two-core
   * machine, so the bar is 15%. It is not near 0 because the pool holds at most one answer per
   * backend: with five backends, picks use up the fast backends' answers first, and until new ones
   * arrive the slow backend's is all that is left, or the pool is empty and power of two choices
   * on this client's own calls in flight decides.
   *
   * <p>Every backend got 1,395 to 1,544 probes, close to its due of 3 per pick over 5 backends;
   * the longest stretch without a probe at any backend was 16 to 31 ms (with the earlier defaults
   * 24 to 150 ms, once 438 ms in a run the machine's other load slowed to 6.5 s). That is the one
   * check here that reads a clock, since "within the maximum age" is a time; the bar is the
   * configured age.
   */
  @Test
  void theSlowBackendGetsASmallShareAndEveryBackendIsProbedWithinTheMaximumAge() throws Exception {
    List<ProbeClock> probes = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      long millis = i == 0 ? SLOW_MILLIS : FAST_MILLIS;
      ProbeClock clock = new ProbeClock();
      probes.add(clock);
      backends.add(
          TestBackend.startBallast(0, key -> sleeping(key, millis), b -> b.intercept(clock), BallastServer.builder()));
    }
    TestBackend slow = backends.get(0);
    String target = StaticResolverProvider.target(backends.stream().map(b -> b.port).toList());
    channel =
        Clients.ballast(target, json("subsetAlgorithm", "rendezvous", "subsetSize", BACKENDS,
            "policy", Map.of("prequal_probing", json("maxAge", MAX_AGE.toMillis() / 1000 + "s"))));

    // Probes go only to backends that take requests: once each has had one, all are healthy.
    for (int i = 0; i < 2000 && probes.stream().anyMatch(p -> p.arrivals.isEmpty()); i++) {
      Clients.call(channel, "warm-up");
    }
    assertThat(probes).allSatisfy(p -> assertThat(p.arrivals).isNotEmpty());
    backends.forEach(TestBackend::resetCounts);

    long from = System.nanoTime();
    try (LoadLoop load = new LoadLoop(List.of(channel), THREADS, CALLS_PER_THREAD, 120)) {
      Poll.until("all calls answered", () -> load.succeeded() + load.failed() == CALLS);
      assertThat(load.failed()).isZero();
    }
    long to = System.nanoTime();

    long total = backends.stream().mapToLong(TestBackend::requests).sum();
    double share = (double) slow.requests() / total;
    double probesPerPick = PrequalProbingConfig.defaults().probesPerPick();
    List<String> coverage = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      coverage.add(String.format("%s%d probes, longest gap %.1f ms", i == 0 ? "slow " : "",
          probes.get(i).count(from, to), probes.get(i).longestGapNanos(from, to) / 1e6));
    }
    System.out.printf("prequal_probing: slow backend %d of %d calls (%.1f%%, fair 20%%); %.0f ms; %s%n",
        slow.requests(), total, 100 * share, (to - from) / 1e6, coverage);

    assertThat(total).isEqualTo(CALLS);
    assertThat(share).isLessThan(0.15);
    for (ProbeClock clock : probes) {
      // Each pick probes two random backends: each backend's due is 2/5 of the calls; at least half of it.
      assertThat(clock.count(from, to)).isGreaterThan((long) (CALLS * probesPerPick / BACKENDS / 2));
      assertThat(clock.longestGapNanos(from, to)).isLessThan(MAX_AGE.toNanos());
    }
  }

  /**
   * Servers without Ballast answer probes UNIMPLEMENTED: every probe fails, the pool stays empty,
   * and every pick falls back to power of two choices on the client's own calls in flight.
   */
  @Test
  void backendsThatCannotAnswerProbesAreStillPickedThroughTheFallback() throws Exception {
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
  }
}
