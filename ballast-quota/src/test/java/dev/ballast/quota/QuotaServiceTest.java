package dev.ballast.quota;

import static dev.ballast.quota.TestMessages.lease;
import static dev.ballast.quota.TestMessages.release;
import static dev.ballast.quota.TestMessages.request;
import static dev.ballast.quota.TestMessages.resource;
import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.quota.v1.Lease;
import dev.ballast.quota.v1.ResourceResponse;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.RandomInputs;
import io.grpc.Status;
import io.grpc.StatusException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class QuotaServiceTest {
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final Duration REFRESH = Duration.ofSeconds(5);
  private final FakeClock clock = new FakeClock();

  private static ResourceConfig db(double capacity) {
    return ResourceConfig.of("db", capacity).withLease(LEASE, REFRESH).withSafeCapacity(capacity / 10);
  }

  private static ResourceResponse ask(QuotaService service, String client, double wants) throws StatusException {
    return ask(service, client, wants, null);
  }

  private static ResourceResponse ask(QuotaService service, String client, double wants, Lease has) throws StatusException {
    return service.getCapacity(request(client, resource("db", wants, has, 1))).getResource(0);
  }

  @Test
  void givesTheDocsExampleItsMaxMinSharesOnceEveryoneHasRefreshedTwice() throws Exception {
    QuotaService service = QuotaService.create(List.of(db(10)), false, clock);
    double[] wants = {2, 2.6, 4, 5};
    double[] grants = new double[4];
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 4; i++) {
        grants[i] = ask(service, "c" + i, wants[i]).getLease().getCapacity();
      }
    }
    assertThat(grants[0]).isCloseTo(2, within(1e-9));
    assertThat(grants[1]).isCloseTo(2.6, within(1e-9));
    assertThat(grants[2]).isCloseTo(2.7, within(1e-9));
    assertThat(grants[3]).isCloseTo(2.7, within(1e-9));
    assertThat(service.granted("db")).isCloseTo(10, within(1e-9));
  }

  @Test
  void aLeaseCarriesTheResourcesTerms() throws Exception {
    QuotaService service = QuotaService.create(List.of(db(100)), false, clock);
    ResourceResponse response = ask(service, "a", 30);
    assertThat(response.getResourceId()).isEqualTo("db");
    assertThat(response.getLease()).isEqualTo(lease(30, 20_000, 5_000));
    assertThat(response.getSafeCapacity()).isEqualTo(10);
  }

  @Test
  void aGrowingShareWaitsForTheOthersToShrinkSoTheLeasesNeverAddUpToMore() throws Exception {
    QuotaService service = QuotaService.create(List.of(db(100)), false, clock);
    assertThat(ask(service, "a", 10).getLease().getCapacity()).isEqualTo(10);
    assertThat(ask(service, "b", 200).getLease().getCapacity()).isEqualTo(90);
    // a now wants more: its fair share is 50, but b holds 90 until it refreshes.
    assertThat(ask(service, "a", 200).getLease().getCapacity()).isEqualTo(10);
    assertThat(service.granted("db")).isEqualTo(100);
    assertThat(ask(service, "b", 200).getLease().getCapacity()).isEqualTo(50);
    assertThat(ask(service, "a", 200).getLease().getCapacity()).isEqualTo(50);
  }

  @Test
  void aVanishedClientsShareReturnsToTheOthersWhenItsLeaseExpires() throws Exception {
    QuotaService service = QuotaService.create(List.of(db(100)), false, clock);
    ask(service, "a", 100);
    ask(service, "b", 100);
    assertThat(ask(service, "a", 100).getLease().getCapacity()).isEqualTo(50);
    clock.advance(LEASE.minusMillis(1));
    assertThat(ask(service, "a", 100).getLease().getCapacity()).as("b's lease still runs").isEqualTo(50);
    clock.advance(Duration.ofMillis(1));
    assertThat(service.clients("db")).isEqualTo(1);
    assertThat(ask(service, "a", 100).getLease().getCapacity()).isEqualTo(100);
  }

  @Test
  void aReleasedLeaseReturnsAtOnce() throws Exception {
    QuotaService service = QuotaService.create(List.of(db(100)), false, clock);
    ask(service, "a", 100);
    ask(service, "b", 100);
    service.releaseCapacity(release("b"));
    assertThat(ask(service, "a", 100).getLease().getCapacity()).isEqualTo(100);
  }

  @Test
  void whileLearningARestartedServerGrantsWhatEachClientHoldsOrItsSafeCapacity() throws Exception {
    QuotaService service = QuotaService.create(List.of(db(100)), true, clock);
    assertThat(service.learning("db")).isTrue();
    assertThat(ask(service, "a", 80, lease(70, 15_000, 0)).getLease().getCapacity()).isEqualTo(70);
    assertThat(ask(service, "b", 20, lease(30, 15_000, 0)).getLease().getCapacity()).as("no more than it wants").isEqualTo(20);
    assertThat(ask(service, "c", 50).getLease().getCapacity()).as("no lease: the safe capacity").isEqualTo(10);
    assertThat(ask(service, "d", 50, lease(40, 0, 0)).getLease().getCapacity()).as("an expired lease is none").isEqualTo(10);
    clock.advance(LEASE.minusMillis(1));
    assertThat(service.learning("db")).isTrue();
    clock.advance(Duration.ofMillis(1));
    assertThat(service.learning("db")).isFalse();
    // Learning is over, but the leases granted while learning hold until each client refreshes.
    for (int round = 0; round < 2; round++) {
      for (String client : List.of("a", "b", "c", "d")) {
        ask(service, client, Map.of("a", 80.0, "b", 20.0, "c", 50.0, "d", 50.0).get(client));
      }
    }
    assertThat(ask(service, "a", 80).getLease().getCapacity()).isCloseTo(80.0 / 3, within(1e-9));
    assertThat(service.granted("db")).isCloseTo(100, within(1e-9));
  }

  @Test
  void unknownResourceIsNotFoundNamingIt() {
    QuotaService service = QuotaService.create(List.of(db(100)), false, clock);
    assertThatThrownBy(() -> service.getCapacity(request("a", resource("dbx", 1))))
        .isInstanceOfSatisfying(StatusException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
          assertThat(e.getStatus().getDescription()).isEqualTo("ballast quota: resource_id: 'dbx' (expected: one of 'db')");
        });
  }

  @Test
  void configurationIsValidatedNamingTheValue() {
    assertThatThrownBy(() -> ResourceConfig.of("db", -1)).hasMessage("capacity: -1 (expected: 0..1e12)");
    assertThatThrownBy(() -> ResourceConfig.of("db", 10).withSafeCapacity(11))
        .hasMessage("safeCapacity: 11 (expected: 0..10, the capacity)");
    assertThatThrownBy(() -> ResourceConfig.of("db", 10).withLease(Duration.ofSeconds(5), Duration.ofSeconds(5)))
        .hasMessage("refreshInterval: 5s (expected: less than the lease length, 5s)");
    assertThatThrownBy(() -> QuotaService.create(List.of(db(1), db(2)), false, clock))
        .hasMessage("resources: 'db' twice (expected: each name at most once)");
  }

  /**
   * Outside learning, whatever the order of requests, demands and lease expiries, the leases
   * outstanding never add up to more than the capacity.
   */
  /** Request i comes from client {@code clients[i]}, wants {@code demands[i]}, and is followed by a pause. */
  record Requests(double capacity, List<Integer> clients, List<Double> demands, List<Integer> gapsMillis) {
    static Requests draw(RandomInputs in) {
      return new Requests(in.decimalBetween(0, 1000, 2), in.listOf(1, 200, client -> client.intBetween(0, 9)),
          in.listOf(200, 200, demand -> demand.decimalBetween(0, 500, 2)),
          in.listOf(200, 200, gap -> gap.intBetween(0, 8000)));
    }
  }

  @Test
  void leasesOutstandingNeverExceedTheCapacity() {
    forAll(Requests::draw, requests -> {
      double capacity = requests.capacity();
      List<Integer> clients = requests.clients();
      List<Double> demands = requests.demands();
      List<Integer> gapsMillis = requests.gapsMillis();
      FakeClock time = new FakeClock();
      QuotaService service = QuotaService.create(List.of(db(capacity)), false, time);
      Map<String, Double> leases = new HashMap<>();
      for (int i = 0; i < clients.size(); i++) {
        String client = "c" + clients.get(i);
        ResourceResponse response = ask(service, client, demands.get(i));
        assertThat(response.getLease().getCapacity()).isLessThanOrEqualTo(demands.get(i));
        leases.put(client, response.getLease().getCapacity());
        assertThat(service.granted("db")).isLessThanOrEqualTo(capacity * (1 + 1e-12));
        time.advance(Duration.ofMillis(gapsMillis.get(i)));
      }
    });
  }

  /**
   * A restart: the old server's clients hold leases adding up to at most the capacity, some have
   * lost theirs during the outage. While the new server learns and after, the leases in force (the
   * new server's, and the old ones not yet replaced) never add up to more than the capacity plus
   * the safe capacities granted, while learning, to clients that held no lease.
   */
  /**
   * What each client wants and whether it lost its lease in the outage; then which client asks at
   * each step (modulo the client count) and the pause after it.
   */
  record Restart(List<Double> wants, List<Boolean> lostLease, List<Integer> order, List<Integer> gapsMillis) {
    static Restart draw(RandomInputs in) {
      return new Restart(in.listOf(1, 12, want -> want.decimalBetween(0, 300, 2)),
          in.listOf(12, 12, RandomInputs::anyBoolean), in.listOf(120, 120, client -> client.intBetween(0, 11)),
          in.listOf(120, 120, gap -> gap.intBetween(0, 900)));
    }
  }

  @Test
  void aRestartedServerKeepsTheLeasesInForceWithinTheDocumentedBound() {
    forAll(Restart::draw, restart -> {
      List<Double> wants = restart.wants();
      List<Boolean> lostLease = restart.lostLease();
      List<Integer> order = restart.order();
      List<Integer> gapsMillis = restart.gapsMillis();
      double capacity = 500;
      int n = wants.size();
      FakeClock time = new FakeClock();
      QuotaService old = QuotaService.create(List.of(db(capacity)), false, time);
      double[] held = new double[n];
      long[] expiresAt = new long[n];
      boolean[] replaced = new boolean[n];
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < n; i++) {
          held[i] = ask(old, "c" + i, wants.get(i)).getLease().getCapacity();
          expiresAt[i] = time.nanoTime() + LEASE.toNanos();
        }
      }
      time.advance(Duration.ofSeconds(3));
      QuotaService restarted = QuotaService.create(List.of(db(capacity)), true, time);
      double[] safeGrantedWhileLearning = new double[n];
      for (int i = 0; i < n; i++) {
        if (lostLease.get(i)) {
          expiresAt[i] = time.nanoTime();
        }
      }
      for (int step = 0; step < order.size(); step++) {
        int i = order.get(step) % n;
        long left = expiresAt[i] - time.nanoTime();
        Lease has = left > 0 ? lease(held[i], Duration.ofNanos(left).toMillis(), 0) : null;
        boolean learning = restarted.learning("db");
        held[i] = ask(restarted, "c" + i, wants.get(i), has).getLease().getCapacity();
        expiresAt[i] = time.nanoTime() + LEASE.toNanos();
        if (learning && has == null) {
          safeGrantedWhileLearning[i] = held[i];
        }
        replaced[i] = true;
        double inForce = restarted.granted("db");
        for (int j = 0; j < n; j++) {
          if (!replaced[j] && expiresAt[j] - time.nanoTime() > 0) {
            inForce += held[j];
          }
        }
        assertThat(inForce).isLessThanOrEqualTo(capacity + java.util.Arrays.stream(safeGrantedWhileLearning).sum() + 1e-9);
        time.advance(Duration.ofMillis(gapsMillis.get(step)));
      }
    });
  }

  /**
   * Whatever the demands and weights: once the last change has reached the server (a round in
   * which the clients report their new demands), two rounds of refreshes bring every client's grant
   * to its max-min share. After the first, no client holds more than its share; in the second,
   * what the others hold leaves each client room for its own.
   */
  /** Each client's demand before the change, after it (even clients only), and weight. */
  record Change(double capacity, List<Double> before, List<Double> after, List<Integer> weights) {
    static Change draw(RandomInputs in) {
      return new Change(in.decimalBetween(0, 1000, 2), in.listOf(1, 30, want -> want.decimalBetween(0, 200, 2)),
          in.listOf(30, 30, want -> want.decimalBetween(0, 200, 2)), in.listOf(30, 30, weight -> weight.intBetween(1, 3)));
    }
  }

  @Test
  void twoRoundsOfRefreshesAfterAnyChangeGrantTheMaxMinShares() {
    forAll(Change::draw, change -> {
      double capacity = change.capacity();
      List<Double> before = change.before();
      List<Double> after = change.after();
      List<Integer> weights = change.weights();
      int n = before.size();
      QuotaService service = QuotaService.create(List.of(db(capacity)), false, clock);
      double[] wants = new double[n];
      double[] w = new double[n];
      for (int phase = 0; phase < 2; phase++) {
        for (int i = 0; i < n; i++) {
          wants[i] = phase == 0 ? before.get(i) : (i % 2 == 0 ? after.get(i) : before.get(i));
          w[i] = weights.get(i);
        }
        double[] grants = new double[n];
        for (int round = 0; round < 3; round++) {
          for (int i = 0; i < n; i++) {
            grants[i] = service.getCapacity(request("c" + i,
                resource("db", wants[i], null, w[i]))).getResource(0).getLease().getCapacity();
          }
        }
        double[] shares = MaxMinAllocator.allocate(capacity, wants, w);
        for (int i = 0; i < n; i++) {
          assertThat(grants[i]).as("client %s in phase %s", i, phase).isCloseTo(shares[i], within(1e-9));
        }
      }
    });
  }
}
