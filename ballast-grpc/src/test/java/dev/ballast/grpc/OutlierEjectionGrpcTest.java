package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.health.Backend;
import dev.ballast.health.OutlierConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Outlier ejection end to end through gRPC, with the {@code ballast} policy's defaults: five
 * Ballast servers on the in-process transport, one of which fails one call in ten with {@code
 * INTERNAL}, and one channel sending a call every 5 ms, all in virtual time ({@link VirtualFleet}),
 * so that every count asserted here is the same on every machine. The failing server is taken out
 * as soon as its window holds enough calls to judge (100, about 2.5 s of its share), gets no call
 * while ejected, and, once it serves well again, is let back in through its probe calls after the
 * 30 s ejection and gets its share again.
 */
final class OutlierEjectionGrpcTest {
  private static final int BACKENDS = 5;
  private static final Duration SERVICE_TIME = Duration.ofMillis(2);
  private static final Duration ROUND_TRIP = Duration.ofMillis(1);
  private static final long CALL_EVERY_NANOS = Duration.ofMillis(5).toNanos();

  private VirtualFleet fleet;

  @AfterEach
  void closeFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  /** Calls sent at a fixed rate of virtual time, counted by how they ended. */
  private static final class OpenLoop {
    private final VirtualFleet fleet;
    private final CountedCalls calls;
    private boolean running = true;

    OpenLoop(ManagedChannel channel, VirtualFleet fleet) {
      this.fleet = fleet;
      this.calls = new CountedCalls(channel, () -> {});
      fleet.time.schedule(this::next, CALL_EVERY_NANOS, TimeUnit.NANOSECONDS);
    }

    private void next() {
      if (running) {
        calls.send("client");
        fleet.time.schedule(this::next, CALL_EVERY_NANOS, TimeUnit.NANOSECONDS);
      }
    }

    void stop() {
      running = false;
    }
  }

  @Test
  void aServerFailingOneCallInTenIsEjectedAndProbedBackIn() throws Exception {
    fleet = new VirtualFleet(1, ROUND_TRIP);
    boolean[] failing = {true};
    int[] served = {0};
    TestBackend bad = fleet.start(key -> (caller, response) -> {
      served[0]++;
      if (failing[0] && served[0] % 10 == 0) {
        response.onError(Status.INTERNAL.withDescription("one call in ten fails").asRuntimeException());
      } else {
        fleet.answerAfter(key, SERVICE_TIME).handle(caller, response);
      }
    }, b -> {}, BallastServer.builder());
    for (int i = 1; i < BACKENDS; i++) {
      fleet.start(key -> fleet.answerAfter(key, SERVICE_TIME), b -> {}, BallastServer.builder());
    }
    // The service config sets nothing about ejection: the defaults are on.
    ManagedChannel channel = fleet.channel(json("subsetAlgorithm", "rendezvous", "subsetSize", BACKENDS,
        "policy", "round_robin"));
    OpenLoop load = new OpenLoop(channel, fleet);
    // The channel makes its balancer at its first call.
    long start = fleet.time.clock().nanoTime();
    fleet.time.advance(Duration.ofMillis(10));
    OutlierConfig defaults = OutlierConfig.defaults();
    long refresh = fleet.balancer().refreshIntervalNanos();

    // Every refresh judges the window: the failing server is out at the first refresh after it
    // has ended 100 calls (40 a second are its share), well within the 10 s interval.
    Backend badBackend = fleet.balancer().backend(bad.key);
    while (badBackend.ejections() == 0 && fleet.time.clock().nanoTime() - start < defaults.interval().toNanos()) {
      fleet.time.advance(Duration.ofNanos(refresh));
    }
    assertThat(fleet.time.clock().nanoTime() - start).as("ejected after (ns)")
        .isLessThanOrEqualTo(Duration.ofMillis(2_500).toNanos() + 2 * refresh);
    assertThat(badBackend.ejections()).as("ejections of the failing server").isEqualTo(1);
    assertThat(badBackend.isEjected()).isTrue();
    assertThat(fleet.balancer().health().ejectedBackends()).isEqualTo(1);
    int failedBeforeEjection = load.calls.failed;
    assertThat(failedBeforeEjection).as("calls failed before its ejection").isPositive();

    // Ejected: no call reaches it, none fails, and the others serve everything.
    long servedWhenEjected = bad.requests();
    failing[0] = false;
    fleet.time.advance(defaults.baseEjectionTime().minus(Duration.ofSeconds(5)));
    assertThat(bad.requests()).as("calls the ejected server got").isEqualTo(servedWhenEjected);
    assertThat(load.calls.failed).as("calls failed while it was out").isEqualTo(failedBeforeEjection);

    // Its ejection time over, it takes its probe calls, which succeed: back in rotation.
    fleet.time.advance(Duration.ofSeconds(10));
    assertThat(bad.requests()).as("calls it got after its ejection").isGreaterThan(servedWhenEjected);
    assertThat(badBackend.isEjected()).as("ejected or on probation after its probes").isFalse();
    assertThat(badBackend.ejections()).isEqualTo(1);

    // Round robin gives it its fifth again.
    long badBefore = bad.requests();
    long allBefore = fleet.backends.stream().mapToLong(TestBackend::requests).sum();
    fleet.time.advance(Duration.ofSeconds(10));
    long badCalls = bad.requests() - badBefore;
    long allCalls = fleet.backends.stream().mapToLong(TestBackend::requests).sum() - allBefore;
    assertThat(badCalls).as("its calls of %d in 10 s back in rotation", allCalls).isBetween(allCalls / 5 - 2, allCalls / 5 + 2);
    assertThat(load.calls.failed).isEqualTo(failedBeforeEjection);
    assertThat(fleet.balancer().health().panicking()).isFalse();

    load.stop();
    fleet.time.advance(Duration.ofSeconds(1));
    assertThat(load.calls.ended()).as("every call ended").isEqualTo(fleet.backends.stream()
        .mapToLong(TestBackend::requests).sum());
  }
}
