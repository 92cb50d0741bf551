package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.probe.v1.ProbeGrpc;
import dev.ballast.grpc.probe.v1.ProbeRequest;
import dev.ballast.grpc.probe.v1.ProbeResponse;
import dev.ballast.overload.LimiterConfig;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The probe service of a real {@link BallastServer}: what it answers, and that probes are no load. */
final class ProbeServerTest {

  /**
   * Calls from "holder" are left unanswered, without holding a server thread (so that a client's
   * cancel reaches the server at once), until {@link #answerHeld}; the others are answered at once.
   */
  private final Queue<StreamObserver<String>> held = new ConcurrentLinkedQueue<>();

  private TestBackend holdingBackend(BallastServer.Builder settings) throws Exception {
    return TestBackend.startBallast(0, key -> (caller, response) -> {
      if (caller.equals("holder")) {
        held.add(response);
        return;
      }
      response.onNext(key);
      response.onCompleted();
    }, settings);
  }

  private void answerHeld() {
    for (StreamObserver<String> response; (response = held.poll()) != null; ) {
      response.onNext("held");
      response.onCompleted();
    }
  }

  private static ManagedChannel direct(TestBackend backend) {
    return NettyChannelBuilder.forAddress("127.0.0.1", backend.port).usePlaintext().build();
  }

  private static ProbeResponse probe(ManagedChannel channel) {
    return ProbeGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).probe(ProbeRequest.getDefaultInstance());
  }

  private static Future<String> hold(ManagedChannel channel) {
    return ClientCalls.futureUnaryCall(
        channel.newCall(EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)), "holder");
  }

  @Test
  void aProbeAnswersTheCallsInFlightAndTheLatencyOfCallsAtThatLoad() throws Exception {
    try (TestBackend backend = holdingBackend(BallastServer.builder())) {
      ManagedChannel channel = direct(backend);
      try {
        assertThat(probe(channel)).isEqualTo(ProbeResponse.getDefaultInstance());
        List<Future<String>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          calls.add(hold(channel));
        }
        // Counted at the call's start, before its handler holds the response: wait for both, or
        // answerHeld could run before the last handler and leave that call unanswered.
        Poll.until("three calls running and held",
            () -> backend.ballast.probeResponder().requestsInFlight() == 3 && held.size() == 3);
        HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
            .check(HealthCheckRequest.getDefaultInstance());

        // Neither the health check nor the probes themselves count.
        assertThat(probe(channel).getRequestsInFlight()).isEqualTo(3);
        assertThat(backend.ballast.callsInFlight()).isEqualTo(3);

        answerHeld();
        for (Future<String> call : calls) {
          call.get(10, TimeUnit.SECONDS);
        }
        Poll.until("the calls ended at the server", () -> backend.ballast.probeResponder().requestsInFlight() == 0);
        ProbeResponse idle = probe(channel);
        // The first call found none in flight: its time is the estimate at no load.
        assertThat(idle.getRequestsInFlight()).isZero();
        assertThat(idle.getLatencyEstimateNanos()).isPositive();
        assertThat(backend.ballast.probesAnswered()).isEqualTo(3);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void probesAreNeverShedNorCountedInTheLoadReportsOrTheLimiter() throws Exception {
    LimiterConfig oneAtATime = LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT)
        .minLimit(1).maxLimit(1).initialLimit(1).criticalityShares(1, 1, 1, 1).build();
    try (TestBackend backend = holdingBackend(BallastServer.builder().adaptiveLimiter(oneAtATime))) {
      ManagedChannel channel = direct(backend);
      try {
        Future<String> call = hold(channel);
        Poll.until("the held call running and held", () -> backend.ballast.callsInFlight() == 1 && held.size() == 1);

        for (int i = 0; i < 20; i++) {
          assertThat(probe(channel).getRequestsInFlight()).isEqualTo(1);
        }

        assertThat(backend.ballast.shedCalls()).isZero();
        assertThat(backend.ballast.limiter().inFlight()).isEqualTo(1);
        // Rates count answered calls: 20 probes answered, the one call still running.
        assertThat(backend.ballast.loadReports().requestsPerSecond()).isZero();
        answerHeld();
        call.get(10, TimeUnit.SECONDS);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void aCallTheClientCancelsEndsOnceAndTeachesNoLatency() throws Exception {
    try (TestBackend backend = holdingBackend(BallastServer.builder())) {
      ManagedChannel channel = direct(backend);
      try {
        Future<String> call = hold(channel);
        Poll.until("the held call running", () -> held.size() == 1);

        call.cancel(true);
        Poll.until("the cancel reached the server", () -> backend.ballast.probeResponder().requestsInFlight() == 0);
        // The handler answers the cancelled call all the same: that end is not counted again.
        answerHeld();

        assertThat(backend.ballast.probeResponder().requestsInFlight()).isZero();
        assertThat(probe(channel)).isEqualTo(ProbeResponse.getDefaultInstance());
      } finally {
        channel.shutdownNow();
      }
    }
  }
}
