package dev.ballast.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class ProbeResponderTest {

  @Test
  void countsRequestsInFlightFromStartToEnd() {
    ProbeResponder responder = ProbeResponder.create();
    int first = responder.onStart();
    int second = responder.onStart();
    assertThat(first).isZero();
    assertThat(second).isEqualTo(1);
    assertThat(responder.requestsInFlight()).isEqualTo(2);
    responder.onEnd(first, 10);
    assertThat(responder.requestsInFlight()).isEqualTo(1);
  }

  @Test
  void estimatesLatencyFromCompletionsThatArrivedAtTheSameLoad() {
    ProbeResponder responder = ProbeResponder.create();
    responder.onEnd(responder.onStart(), 0);
    // Latency 10 ms at 0 in flight, 40 ms at 3 in flight.
    responder.onEnd(0, 10_000_000);
    responder.onStart();
    responder.onEnd(3, 40_000_000);
    responder.onStart();
    assertThat(responder.latencyEstimateNanos(0)).isEqualTo(10_000_000);
    assertThat(responder.latencyEstimateNanos(3)).isEqualTo(40_000_000);
    // No sample at 2: the nearest lower bucket answers; above 3, bucket 3 does.
    assertThat(responder.latencyEstimateNanos(2)).isEqualTo(10_000_000);
    assertThat(responder.latencyEstimateNanos(500)).isEqualTo(40_000_000);
  }

  @Test
  void answersTheMedianOfTheBucketsLatestCompletionsSoOneHugeQueryDoesNotMakeAnIdleBackendLookSlow() {
    ProbeResponder responder = ProbeResponder.create();
    for (long latency : new long[] {10, 12, 10_000_000_000L, 11, 13}) {
      responder.onEnd(responder.onStart(), latency);
    }
    assertThat(responder.latencyEstimateNanos(0)).isEqualTo(12);
    // Only the latest WINDOW completions count: eight more of 100 push the others out.
    for (int i = 0; i < ProbeResponder.WINDOW; i++) {
      responder.onEnd(responder.onStart(), 100);
    }
    assertThat(responder.latencyEstimateNanos(0)).isEqualTo(100);
  }

  @Test
  void anEmptyResponderEstimatesZeroAndLoadsShareLogarithmicBuckets() {
    assertThat(ProbeResponder.create().latencyEstimateNanos()).isZero();
    assertThat(ProbeResponder.bucket(7)).isEqualTo(7);
    assertThat(ProbeResponder.bucket(8)).isEqualTo(ProbeResponder.bucket(15)).isEqualTo(8);
    assertThat(ProbeResponder.bucket(16)).isEqualTo(9);
    assertThat(ProbeResponder.bucket(Integer.MAX_VALUE)).isEqualTo(ProbeResponder.BUCKETS - 1);
  }
}
