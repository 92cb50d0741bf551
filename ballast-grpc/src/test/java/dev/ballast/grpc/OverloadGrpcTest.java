package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Overload protection over real loopback calls: the server's interceptor and the client's policy. */
final class OverloadGrpcTest {

  private static ManagedChannel direct(TestBackend backend) {
    return NettyChannelBuilder.forAddress("127.0.0.1", backend.port).usePlaintext().build();
  }

  private static StatusRuntimeException failure(Channel channel, CallOptions options, Metadata[] trailers) {
    try {
      ClientCalls.blockingUnaryCall(channel, EchoService.CALL, options, "caller");
    } catch (StatusRuntimeException e) {
      trailers[0] = e.getTrailers();
      return e;
    }
    throw new AssertionError("the call succeeded");
  }

  private static CallOptions withDeadline() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** A limiter that admits one call at a time, whatever it measures. */
  private static LimiterConfig oneAtATime() {
    return LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).minLimit(1).maxLimit(1).initialLimit(1)
        .criticalityShares(1, 1, 1, 1).build();
  }

  @Test
  void aShedCallIsAnsweredAtOnceAsOverloadedWithoutRunning() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch holding = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    try (TestBackend backend = TestBackend.startBallast(0, key -> (caller, response) -> {
          ran.incrementAndGet();
          if (caller.equals("holder")) {
            holding.countDown();
            try {
              release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          response.onNext(key);
          response.onCompleted();
        }, BallastServer.builder().adaptiveLimiter(oneAtATime()))) {
      ManagedChannel channel = direct(backend);
      try {
        var held = ClientCalls.futureUnaryCall(channel.newCall(EchoService.CALL, withDeadline()), "holder");
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Metadata[] trailers = new Metadata[1];
        StatusRuntimeException shed = failure(channel, withDeadline(), trailers);
        assertThat(shed.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(shed.getStatus().getDescription()).startsWith("ballast: overloaded, shed without running (1 in flight, limit 1");
        assertThat(trailers[0].get(OverloadSignal.TRAILER)).isEqualTo("shed");
        assertThat(ran.get()).isEqualTo(1);
        assertThat(backend.ballast.shedCalls()).isEqualTo(1);
        // Health checks are never shed.
        assertThat(io.grpc.health.v1.HealthGrpc.newBlockingStub(channel)
            .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance()).getStatus())
            .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
        release.countDown();
        assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo(backend.key);
        assertThat(Clients.call(channel, "after")).isEqualTo(backend.key);
      } finally {
        release.countDown();
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aCallWithTooLittleOfItsDeadlineLeftIsRefusedWithoutRunning() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    try (TestBackend backend = TestBackend.startBallast(0, key -> (caller, response) -> {
          ran.incrementAndGet();
          response.onNext(key);
          response.onCompleted();
        }, BallastServer.builder().minDeadline(Duration.ofMinutes(5)))) {
      ManagedChannel channel = direct(backend);
      try {
        StatusRuntimeException refused = failure(channel, withDeadline(), new Metadata[1]);
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(refused.getStatus().getDescription()).startsWith("ballast: not started, ").endsWith("(expected: at least 300000 ms)");
        assertThat(ran.get()).isZero();
        assertThat(backend.ballast.callsRefusedForDeadline()).isEqualTo(1);
        // No deadline at all: nothing to check.
        assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.CALL, CallOptions.DEFAULT, "x")).isEqualTo(backend.key);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void anOverloadFromAServiceBehindIsPassedUpAsOverloadedDontRetry() throws Exception {
    try (TestBackend backend = TestBackend.startBallast(0, key -> (caller, response) ->
            response.onError(Status.RESOURCE_EXHAUSTED.withDescription("downstream shed it").asRuntimeException()),
        BallastServer.builder())) {
      ManagedChannel channel = direct(backend);
      try {
        Metadata[] trailers = new Metadata[1];
        StatusRuntimeException e = failure(channel, withDeadline(), trailers);
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(trailers[0].get(OverloadSignal.TRAILER)).isEqualTo("dont-retry");
        assertThat(trailers[0].get(OverloadSignal.PUSHBACK)).isEqualTo("-1");
        assertThat(backend.ballast.callsMarkedDontRetry()).isEqualTo(1);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void criticalityTravelsFromACallOptionToTheServerAndOnToItsOwnCalls() throws Exception {
    AtomicReference<Criticality> seenByBack = new AtomicReference<>();
    try (TestBackend back = TestBackend.startBallast(0, key -> (caller, response) -> {
          seenByBack.set(BallastCalls.currentCriticality());
          response.onNext(key);
          response.onCompleted();
        }, BallastServer.builder().adaptiveLimiter(LimiterConfig.defaults()))) {
      // The front's outgoing calls carry the criticality of the call being handled.
      ManagedChannel toBack = NettyChannelBuilder.forAddress("127.0.0.1", back.port).usePlaintext()
          .intercept(BallastCalls.interceptor()).build();
      AtomicReference<Criticality> seenByFront = new AtomicReference<>();
      try (TestBackend front = TestBackend.startBallast(0, key -> (caller, response) -> {
            seenByFront.set(BallastCalls.currentCriticality());
            // The front's own call, made while handling: no criticality set on it.
            String answer = ClientCalls.blockingUnaryCall(toBack, EchoService.CALL, withDeadline(), "front");
            response.onNext(answer);
            response.onCompleted();
          }, BallastServer.builder())) {
        ManagedChannel frontChannel = direct(front);
        Channel channel = ClientInterceptors.intercept(frontChannel, BallastCalls.interceptor());
        assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.CALL,
            withDeadline().withOption(BallastCalls.CRITICALITY, Criticality.SHEDDABLE_PLUS), "user"))
            .isEqualTo(back.key);
        assertThat(seenByFront.get()).isEqualTo(Criticality.SHEDDABLE_PLUS);
        // The back server reads it from the header alone.
        assertThat(seenByBack.get()).isEqualTo(Criticality.SHEDDABLE_PLUS);
        // Without an option or a context, the default, and no header.
        ClientCalls.blockingUnaryCall(channel, EchoService.CALL, withDeadline(), "user");
        assertThat(seenByFront.get()).isEqualTo(Criticality.CRITICAL);
        frontChannel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      } finally {
        toBack.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void anUnknownCriticalityHeaderIsCountedAndTakenAsTheDefault() throws Exception {
    AtomicReference<Criticality> seen = new AtomicReference<>();
    try (TestBackend backend = TestBackend.startBallast(0, key -> (caller, response) -> {
          seen.set(BallastCalls.currentCriticality());
          response.onNext(key);
          response.onCompleted();
        }, BallastServer.builder())) {
      ManagedChannel channel = direct(backend);
      try {
        Metadata headers = new Metadata();
        headers.put(BallastCalls.CRITICALITY_HEADER, "urgent");
        Channel withHeader = ClientInterceptors.intercept(channel, io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers));
        ClientCalls.blockingUnaryCall(withHeader, EchoService.CALL, withDeadline(), "x");
        assertThat(seen.get()).isEqualTo(Criticality.CRITICAL);
        assertThat(backend.ballast.badCriticalityHeaders()).isEqualTo(1);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aClientWhoseBackendsShedEverythingThrottlesItselfLocally() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch holding = new CountDownLatch(1);
    // Its limiter admits one call at a time, and one call holds it: every other call is shed.
    try (TestBackend backend = TestBackend.startBallast(0, key -> (caller, response) -> {
          if (caller.equals("holder")) {
            holding.countDown();
            try {
              release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          response.onNext(key);
          response.onCompleted();
        }, BallastServer.builder().adaptiveLimiter(oneAtATime()))) {
      ManagedChannel holderChannel = direct(backend);
      ManagedChannel channel = Clients.ballast(StaticResolverProvider.target(List.of(backend.port)),
          json("subsetAlgorithm", "rendezvous", "policy", "round_robin", "healthCheckInterval", "0.1s"));
      try {
        ClientCalls.futureUnaryCall(holderChannel.newCall(EchoService.CALL, withDeadline()), "holder");
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        String localRejection = null;
        int calls = 0;
        // Bounded: the throttle recomputes every 100 ms, and each call takes a round trip.
        for (; calls < 20_000 && localRejection == null; calls++) {
          try {
            Clients.call(channel, "x");
          } catch (StatusRuntimeException e) {
            String description = String.valueOf(e.getStatus().getDescription());
            if (description.startsWith("ballast: throttled locally")) {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              localRejection = description;
            } else {
              assertThat(description).startsWith("ballast: overloaded, shed without running");
            }
          }
        }
        assertThat(localRejection).as("a local rejection within %s calls", calls).isNotNull();
        assertThat(backend.ballast.shedCalls()).isLessThan(calls);
      } finally {
        release.countDown();
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        holderChannel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The client's rate limit on a balancer whose clock stands still until the test moves it: the
   * bucket lets its burst out and rejects the rest locally, then refills by the rate for the time
   * that passed, never beyond the burst.
   */
  @Test
  void aClientRateLimitSendsItsBurstThenTheRateTimesTheTimePassedAndRejectsTheRestLocally() throws Exception {
    FakeScheduler time = new FakeScheduler(new FakeClock());
    try (TestBallastProvider policy = TestBallastProvider.repeatable(time.clock(), 1);
        TestBackend backend = TestBackend.startBallast(0, EchoService::answerWith, BallastServer.builder())) {
      ManagedChannel channel = Clients.channel(StaticResolverProvider.target(List.of(backend.port)),
          policy.getPolicyName(),
          json("subsetAlgorithm", "rendezvous", "policy", "round_robin", "rateLimit", json("rate", 20, "burst", 5)));
      try {
        Clients.call(channel, "warm-up"); // connects; takes one token
        backend.resetCounts();
        List<String> rejections = new ArrayList<>();
        assertThat(sent(channel, 200, rejections)).as("the burst, less the warm-up's token").isEqualTo(4);
        assertThat(rejections).hasSize(196).containsOnly("ballast: not sent, over the client's rate limit of 20.0"
            + " requests per second (burst 5, service config rateLimit)");
        time.advance(Duration.ofMillis(100));
        assertThat(sent(channel, 200, rejections)).as("0.1 s at 20 per second").isEqualTo(2);
        time.advance(Duration.ofHours(1));
        assertThat(sent(channel, 200, rejections)).as("after an hour, the burst and no more").isEqualTo(5);
        assertThat(backend.requests()).isEqualTo(4 + 2 + 5);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Makes {@code calls} calls; returns how many were sent, and adds each local rejection's description. */
  private static int sent(ManagedChannel channel, int calls, List<String> rejections) {
    int sent = 0;
    for (int i = 0; i < calls; i++) {
      try {
        Clients.call(channel, "x");
        sent++;
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        rejections.add(e.getStatus().getDescription());
      }
    }
    return sent;
  }

  @Test
  void rateLimitSettingsAreValidatedWithTheirPath() {
    BallastConfigParser parser = new BallastConfigParser(k -> null, k -> null, 1, (level, message) -> {});
    assertThatThrownBy(() -> parser.parse(json("rateLimit", json("rate", -1))))
        .hasMessage("rateLimit.rate: -1 (expected: a number in 0..1000000000)");
    assertThatThrownBy(() -> parser.parse(json("rateLimit", json("rate", 10, "burst", 0))))
        .hasMessage("rateLimit.burst: 0 (expected: a whole number in 1..1000000000)");
    assertThatThrownBy(() -> parser.parse(json("rateLimit", json("burst", 10))))
        .hasMessage("rateLimit.rate: missing (expected: a number in 0..1000000000)");
    assertThatThrownBy(() -> parser.parse(json("rateLimit", json("rate", 10, "per", "second"))))
        .hasMessageStartingWith("rateLimit.per: unknown key");
    assertThat(parser.parse(json()).overload().rateLimit()).isNull();
    assertThat(parser.parse(json("rateLimit", json("rate", 2.5))).overload().rateLimit())
        .as("the burst defaults to one second of the rate, rounded up")
        .isEqualTo(new TokenBucketConfig(2.5, 3));
  }

  @Test
  void thePickerTakesTheCriticalityFromTheCallOptionElseFromAHeaderSetByHand() {
    Metadata headers = new Metadata();
    assertThat(BallastCalls.of(CallOptions.DEFAULT, headers)).isEqualTo(Criticality.CRITICAL);
    headers.put(BallastCalls.CRITICALITY_HEADER, "sheddable");
    assertThat(BallastCalls.of(CallOptions.DEFAULT, headers)).isEqualTo(Criticality.SHEDDABLE);
    assertThat(BallastCalls.of(CallOptions.DEFAULT.withOption(BallastCalls.CRITICALITY, Criticality.CRITICAL_PLUS), headers))
        .isEqualTo(Criticality.CRITICAL_PLUS);
    Metadata unknown = new Metadata();
    unknown.put(BallastCalls.CRITICALITY_HEADER, "urgent");
    assertThat(BallastCalls.of(CallOptions.DEFAULT, unknown)).isEqualTo(Criticality.CRITICAL);
  }

  @Test
  void throttleAndBudgetSettingsAreValidatedWithTheirPath() {
    BallastConfigParser parser = new BallastConfigParser(k -> null, k -> null, 1, (level, message) -> {});
    assertThatThrownBy(() -> parser.parse(json("throttle", json("k", 1))))
        .hasMessage("throttle.k: 1 (expected: a number in 1.1..10)");
    assertThatThrownBy(() -> parser.parse(json("throttle", json("window", "0.5s"))))
        .hasMessage("throttle.window: 500ms (expected: a duration in 1s..1h)");
    assertThatThrownBy(() -> parser.parse(json("throttle", json("sometimes", true))))
        .hasMessageStartingWith("throttle.sometimes: unknown key");
    assertThatThrownBy(() -> parser.parse(json("retryBudget", json("ratio", 2))))
        .hasMessage("retryBudget.ratio: 2 (expected: a number in 0..1)");
    assertThatThrownBy(() -> parser.parse(json("retryBudget", "10%")))
        .hasMessage("retryBudget: \"10%\" (expected: an object)");
    assertThatThrownBy(() -> parser.parse(json("overloadRetryFloor", "urgent")))
        .hasMessage("overloadRetryFloor: 'urgent' (expected: critical_plus, critical, sheddable_plus or sheddable)");
    BallastConfig off = parser.parse(json("throttle", json("enabled", false), "retryBudget", json("enabled", false),
        "overloadRetryFloor", "sheddable"));
    assertThat(off.overload().throttle()).isNull();
    assertThat(off.overload().budget()).isNull();
    assertThat(off.overload().overloadRetryFloor()).isEqualTo(Criticality.SHEDDABLE);
    BallastConfig defaults = parser.parse(json());
    assertThat(defaults.overload().throttle()).isEqualTo(dev.ballast.overload.ThrottleConfig.defaults());
    assertThat(defaults.overload().budget()).isEqualTo(dev.ballast.overload.RetryBudgetConfig.defaults());
  }
}
