package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Zone routing end to end through gRPC: nine servers in three zones, given by the service
 * config's {@code zones} map, and one channel whose client is in zone c. Under load, zone c's
 * three servers stop at once and come back ten seconds later. It all runs in virtual time ({@link
 * VirtualFleet}), so every count asserted is the same on every machine.
 */
final class ZoneFailoverGrpcTest {
  private static final int PER_ZONE = 3;
  private static final String[] ZONES = {"a", "b", "c"};
  private static final Duration SERVICE_TIME = Duration.ofMillis(5);
  private static final int CALLERS = 3;
  private static final int SEEDS = 3;

  /** Every call's start and the backend that answered it (null: it failed). */
  private record Call(long startedNanos, String backend) {
    /** The zone of the backend that answered; null for a failed call. */
    String zone() {
      return backend == null ? null : ZONES[Integer.parseInt(backend.substring("task-".length())) / PER_ZONE];
    }
  }

  private VirtualFleet fleet;

  @AfterEach
  void closeFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void aZoneThatStopsUnderLoadFailsOnlyItsCallsInFlightAndGetsItsTrafficBackWhenItReturns() throws Exception {
    for (long seed = 1; seed <= SEEDS; seed++) {
      fleet = new VirtualFleet(seed, Duration.ofMillis(1));
      Map<String, Object> zones = new LinkedHashMap<>();
      for (int i = 0; i < ZONES.length * PER_ZONE; i++) {
        fleet.start(key -> fleet.answerAfter(key, SERVICE_TIME), b -> {}, null);
        zones.put("task-" + i, ZONES[i / PER_ZONE]);
      }
      ManagedChannel channel = fleet.channel(json(
          "subsetAlgorithm", "rendezvous", "subsetSize", PER_ZONE, "remoteSubsetSize", PER_ZONE,
          "policy", "round_robin", "zone", "c", "zones", zones));
      List<Call> calls = new ArrayList<>();
      ClosedLoop load = new ClosedLoop(channel, fleet.time, CALLERS, Integer.MAX_VALUE,
          (started, backend) -> calls.add(new Call(started, backend)));
      fleet.time.advance(Duration.ofSeconds(5));
      long stoppedAt = fleet.time.clock().nanoTime();
      for (int i = 2 * PER_ZONE; i < 3 * PER_ZONE; i++) {
        fleet.stop(i);
      }
      fleet.time.advance(Duration.ofSeconds(10));
      long backAt = fleet.time.clock().nanoTime();
      for (int i = 2 * PER_ZONE; i < 3 * PER_ZONE; i++) {
        fleet.restart(i, key -> fleet.answerAfter(key, SERVICE_TIME), b -> {}, null);
      }
      fleet.time.advance(Duration.ofSeconds(30));
      load.stop();
      fleet.time.runUntil("the last calls answered", load::done, Duration.ofMinutes(1));

      String input = "seed " + seed;
      List<Call> before = window(calls, 0, stoppedAt);
      List<Call> failedLater = calls.stream().filter(c -> c.backend == null && c.startedNanos >= stoppedAt).toList();
      List<Call> during = window(calls, stoppedAt, backAt);
      List<Call> lastTen = window(calls, backAt + Duration.ofSeconds(20).toNanos(), Long.MAX_VALUE);
      long lastRemote = calls.stream().filter(c -> c.startedNanos >= backAt && !"c".equals(c.zone()))
          .mapToLong(Call::startedNanos).max().orElse(backAt);
      long failedInFlight = calls.stream().filter(c -> c.backend == null && c.startedNanos < stoppedAt).count();
      System.out.printf("zones, %s: %d calls; before the stop %d, all answered in zone c: %s; failed: %d in flight at the stop,"
              + " %d started after it; during the outage %d calls, %d to zone a; the last 10 s %d calls, %d local; the last call"
              + " sent to another zone %.1f s after the return%n",
          input, calls.size(), before.size(), before.stream().allMatch(c -> c.backend == null || "c".equals(c.zone())), failedInFlight,
          failedLater.size(), during.size(), during.stream().filter(c -> "a".equals(c.zone())).count(),
          lastTen.size(), lastTen.stream().filter(c -> "c".equals(c.zone())).count(), (lastRemote - backAt) / 1e9);

      assertThat(before).as(input).isNotEmpty().allMatch(c -> c.backend != null && c.zone().equals("c") || c.backend == null);
      // A call on a stopped server fails; only those sent before the stop may have been on one.
      assertThat(failedInFlight).as("%s, failed calls in flight at the stop", input).isLessThanOrEqualTo(CALLERS);
      assertThat(failedLater).as("%s, failed calls started after the stop", input).isEmpty();
      assertThat(during).as(input).isNotEmpty().allMatch(c -> c.backend != null && !c.zone().equals("c"));
      // The two zones left share the failed-over calls.
      long toA = during.stream().filter(c -> "a".equals(c.zone())).count();
      assertThat((double) toA / during.size()).as("%s, zone a's share during the outage", input).isBetween(0.3, 0.7);
      // Back to local first within 20 s of the return: reconnection's backoff, then the ramp.
      assertThat(lastTen).as(input).isNotEmpty().allMatch(c -> "c".equals(c.zone()));
      fleet.close();
      fleet = null;
    }
  }

  private static List<Call> window(List<Call> calls, long from, long to) {
    return calls.stream().filter(c -> c.startedNanos >= from && c.startedNanos < to).toList();
  }
}
