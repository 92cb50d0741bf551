package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.grpc.testing.StaticResolverProvider;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Hedged calls over real loopback calls, asserting counts, never latencies: a backend that never
 * answers a call until it is cancelled, beside one that answers at once.
 */
final class HedgingGrpcTest {
  /** The echo method, marked idempotent as its proto's {@code idempotency_level} would mark it. */
  private static final MethodDescriptor<String, String> IDEMPOTENT = EchoService.CALL.toBuilder().setIdempotent(true).build();

  /** Two backends; the call that finds {@code hangNext} set hangs on its backend until cancelled. */
  private static final class Fleet implements AutoCloseable {
    final AtomicBoolean hangNext = new AtomicBoolean();
    final CountDownLatch hanging = new CountDownLatch(1);
    final CountDownLatch cancelled = new CountDownLatch(1);
    final AtomicReference<String> hungOn = new AtomicReference<>();
    final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
    final TestBackend a;
    final TestBackend b;

    Fleet() throws Exception {
      a = TestBackend.startBallast(0, this::behaviour, BallastServer.builder());
      b = TestBackend.startBallast(0, this::behaviour, BallastServer.builder());
    }

    private EchoService.Behaviour behaviour(String key) {
      return (caller, response) -> {
        served.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        if (hangNext.getAndSet(false)) {
          hungOn.set(key);
          Context.current().addListener(context -> cancelled.countDown(), Runnable::run);
          hanging.countDown();
          return; // never answers: only the caller's cancel ends it
        }
        response.onNext(key);
        response.onCompleted();
      };
    }

    String target() {
      return StaticResolverProvider.target(List.of(a.port, b.port));
    }

    int servedCalls() {
      return served.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Override
    public void close() {
      a.close();
      b.close();
    }
  }

  private static String call(Channel channel, CallOptions options) {
    return ClientCalls.blockingUnaryCall(channel, IDEMPOTENT,
        options.withDeadlineAfter(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS), "caller");
  }

  /**
   * Twenty calls that fill the retry budget (it allows 10% of first attempts) and cannot be hedged,
   * whatever the machine's speed: their method is not marked idempotent, so the interceptor leaves
   * them alone, though the service config lists it.
   */
  private static void fillTheBudget(Channel channel) {
    for (int i = 0; i < 20; i++) {
      ClientCalls.blockingUnaryCall(channel, EchoService.CALL,
          CallOptions.DEFAULT.withDeadlineAfter(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS), "caller");
    }
  }

  @Test
  void aHedgeToTheOtherBackendWinsTheFirstIsCancelledAndTheBudgetIsChargedOnce() throws Exception {
    try (Fleet fleet = new Fleet()) {
      String target = fleet.target();
      AtomicReference<BallastClients.Client> client = new AtomicReference<>();
      BallastClients clients = BallastClients.create();
      Runnable stop = clients.observe(new BallastClients.Observer() {
        @Override
        public void opened(BallastClients.Client c) {
          // Only this channel is tracked by this object: its balancer is the one seen.
          client.set(c);
        }

        @Override
        public void closed(BallastClients.Client c) {}
      });
      // A budget window of 10 minutes: the twenty calls count however slowly a busy machine runs them.
      ManagedChannel channel = Clients.ballast(clients, target, json("policy", "round_robin",
          "retryBudget", json("window", "600s"),
          "hedging", json("delay", "0.05s", "methods", List.of("ballast.test.Echo/*"))));
      Channel hedged = ClientInterceptors.intercept(channel, BallastCalls.interceptor());
      try {
        fillTheBudget(hedged);
        assertThat(fleet.servedCalls()).isEqualTo(20);
        assertThat(client.get()).as("the channel's balancer").isNotNull();
        long retriesBefore = client.get().retryBudget().retriesTaken();

        fleet.hangNext.set(true);
        String answeredBy = call(hedged, CallOptions.DEFAULT);

        assertThat(fleet.hanging.await(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(answeredBy).isNotEqualTo(fleet.hungOn.get());
        // The first attempt, still out on the backend that never answers, was cancelled.
        assertThat(fleet.cancelled.await(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(fleet.servedCalls()).isEqualTo(22);
        assertThat(client.get().retryBudget().retriesTaken() - retriesBefore).isEqualTo(1);
      } finally {
        stop.run();
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void noHedgeWhenTheBudgetIsSpent() throws Exception {
    try (Fleet fleet = new Fleet()) {
      ManagedChannel channel = Clients.ballast(fleet.target(), json("policy", "round_robin",
          "retryBudget", json("ratio", 0),
          "hedging", json("delay", "0.05s", "methods", List.of("ballast.test.Echo/Call"))));
      Channel hedged = ClientInterceptors.intercept(channel, BallastCalls.interceptor());
      try {
        fillTheBudget(hedged);
        fleet.hangNext.set(true);
        // With no budget the hedge is refused, and the call waits for its first attempt: a short
        // deadline ends it (a hang guard, not a measurement).
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(hedged, IDEMPOTENT,
            CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS), "caller"))
            .hasMessageContaining("DEADLINE_EXCEEDED");
        assertThat(fleet.servedCalls()).isEqualTo(21);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aCallOnAMethodThatIsNotIdempotentCannotOptIn() {
    Channel hedged = ClientInterceptors.intercept(new Channel() {
      @Override
      public <Q, R> io.grpc.ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
        throw new AssertionError("no call reaches the channel");
      }

      @Override
      public String authority() {
        return "test";
      }
    }, BallastCalls.interceptor());
    assertThatThrownBy(() -> hedged.newCall(EchoService.CALL, CallOptions.DEFAULT.withOption(BallastCalls.HEDGING, true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hedging: ballast.test.Echo/Call (expected: a unary method marked idempotent or safe, "
            + "e.g. option idempotency_level = IDEMPOTENT)");
  }
}
