package dev.ballast.quota;

import static dev.ballast.quota.TestMessages.lease;
import static dev.ballast.quota.TestMessages.release;
import static dev.ballast.quota.TestMessages.request;
import static dev.ballast.quota.TestMessages.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.quota.QuotaCaller.Connection;
import dev.ballast.quota.v1.Lease;
import dev.ballast.testing.FakeClock;
import io.grpc.Status;
import io.grpc.StatusException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What keeps one caller from hurting the service or the other clients: the bound on clients, one process per client id, one identity's leases. */
final class QuotaServiceGuardsTest {
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final Duration REFRESH = Duration.ofSeconds(5);
  private final FakeClock clock = new FakeClock();
  private final List<LogRecord> warnings = new ArrayList<>();
  private final Logger logger = Logger.getLogger(QuotaService.class.getName());
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel() == Level.WARNING) {
        warnings.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  {
    logger.addHandler(capture);
  }

  @AfterEach
  void stopCapturing() {
    logger.removeHandler(capture);
  }

  private QuotaService service(double capacity, int maxClients) {
    return QuotaService.create(List.of(ResourceConfig.of("db", capacity).withLease(LEASE, REFRESH).withMaxClients(maxClients)),
        false, clock);
  }

  private static Connection connection(int port) {
    return new Connection(new InetSocketAddress("127.0.0.1", port));
  }

  private static Lease ask(QuotaService service, QuotaCaller caller, String client, double wants, Lease has) throws StatusException {
    return service.getCapacity(caller, request(client, resource("db", wants, has, 1))).getResource(0).getLease();
  }

  private static double ask(QuotaService service, QuotaCaller caller, String client, double wants) throws StatusException {
    return ask(service, caller, client, wants, null).getCapacity();
  }

  @Test
  void aNewClientPastTheBoundIsResourceExhaustedNamingItAndTheTableStaysAtTheBound() throws Exception {
    QuotaService service = service(1000, 100);
    for (int i = 0; i < 100; i++) {
      ask(service, QuotaCaller.ANONYMOUS, "client-" + i, 5);
    }

    for (int i = 0; i < 10_000; i++) {
      int newcomer = i;
      StatusException refused = catchThrowableOfType(StatusException.class,
          () -> ask(service, QuotaCaller.ANONYMOUS, "newcomer-" + newcomer, 5));
      assertThat(refused).as("newcomer %d", i).isNotNull();
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      if (i == 0) {
        assertThat(refused.getStatus().getDescription()).isEqualTo("ballast quota: clients of 'db': 100 hold leases,"
            + " so client_id 'newcomer-0' cannot join (expected: at most 100, the resource's maxClients, --max-clients"
            + " on the command line)");
      }
    }

    assertThat(service.clients("db")).as("the table after 10,000 newcomers").isEqualTo(100);
    assertThat(service.clientsRefused()).isEqualTo(10_000);
    assertThat(ask(service, QuotaCaller.ANONYMOUS, "client-7", 5)).as("a client already in refreshes").isEqualTo(5);
    clock.advance(LEASE);
    assertThat(ask(service, QuotaCaller.ANONYMOUS, "newcomer-0", 5)).as("once the old leases expired").isEqualTo(5);
    assertThat(service.clients("db")).isEqualTo(1);
  }

  /**
   * The report's case: two processes sharing a client id held 500 + 500, and a third client 500,
   * of a capacity of 1000. Now the second connection is granted nothing while the first holds the
   * lease, the grants add up to the capacity, and the duplicate is counted and logged.
   */
  @Test
  void aClientIdOnTwoConnectionsAtOnceIsCountedWarnedAndTheSecondIsGrantedNothing() throws Exception {
    QuotaService service = service(1000, 100);
    QuotaCaller first = new QuotaCaller(connection(5001), null);
    QuotaCaller second = new QuotaCaller(connection(5002), null);
    QuotaCaller other = new QuotaCaller(connection(5003), null);

    double[] grants = new double[3];
    for (int round = 0; round < 3; round++) {
      grants[0] = ask(service, first, "shared", 800);
      grants[1] = ask(service, second, "shared", 800);
      grants[2] = ask(service, other, "other", 800);
    }

    assertThat(grants).containsExactly(500, 0, 500);
    assertThat(grants[0] + grants[1] + grants[2]).isLessThanOrEqualTo(1000);
    assertThat(service.granted("db")).isEqualTo(1000);
    assertThat(service.duplicateClientIds()).as("the second connection's three requests").isEqualTo(3);
    assertThat(warnings).as("one warning a lease length").hasSize(1);
    assertThat(warnings.get(0).getMessage()).contains("two connections at once");
    clock.advance(REFRESH);
    ask(service, first, "shared", 800);
    ask(service, second, "shared", 800);
    assertThat(warnings).hasSize(1);
    clock.advance(LEASE);
    ask(service, first, "shared", 800);
    ask(service, second, "shared", 800);
    assertThat(warnings).as("again a lease length later").hasSize(2);
  }

  @Test
  void aDuplicatesReleaseLeavesTheHoldersLeaseAndTheHoldersOwnReleaseWorks() throws Exception {
    QuotaService service = service(1000, 100);
    QuotaCaller first = new QuotaCaller(connection(5001), null);
    QuotaCaller second = new QuotaCaller(connection(5002), null);
    ask(service, first, "shared", 800);

    service.releaseCapacity(second, release("shared"));
    assertThat(service.granted("db")).isEqualTo(800);
    assertThat(service.duplicateClientIds()).isEqualTo(1);

    service.releaseCapacity(first, release("shared"));
    assertThat(service.granted("db")).isZero();
    assertThat(ask(service, second, "shared", 800)).as("the id is free").isEqualTo(800);
  }

  @Test
  void theLeaseMovesWhenTheHoldersConnectionHasClosed() throws Exception {
    QuotaService service = service(1000, 100);
    Connection old = connection(5001);
    ask(service, new QuotaCaller(old, null), "shared", 800);
    QuotaCaller waiting = new QuotaCaller(connection(5002), null);
    assertThat(ask(service, waiting, "shared", 300)).isZero();

    old.closed();

    assertThat(ask(service, waiting, "shared", 300)).isEqualTo(300);
    assertThat(service.granted("db")).as("one lease, the new connection's").isEqualTo(300);
  }

  /** The same process on a new connection, its old one not yet seen closed, reports the very lease it holds. */
  @Test
  void aClientReconnectedBeforeTheOldConnectionIsSeenClosedKeepsItsLease() throws Exception {
    QuotaService service = service(1000, 100);
    Lease held = ask(service, new QuotaCaller(connection(5001), null), "client", 800, null);
    clock.advance(REFRESH);

    Lease reported = lease(held.getCapacity(), LEASE.minus(REFRESH).toMillis() - 3, 0);
    Lease renewed = ask(service, new QuotaCaller(connection(5002), null), "client", 800, reported);

    assertThat(renewed.getCapacity()).isEqualTo(800);
    assertThat(service.duplicateClientIds()).isZero();
    assertThat(ask(service, new QuotaCaller(connection(5003), null), "client", 800, lease(799, 10_000, 0)))
        .as("a third connection reporting another lease").extracting(Lease::getCapacity).isEqualTo(0.0);
  }

  /** Behind mutual TLS a lease is the caller identity's: another identity's same client id is another lease. */
  @Test
  void aCallerRefreshesAndReleasesOnlyItsOwnIdentitysLeases() throws Exception {
    QuotaService service = service(1000, 100);
    QuotaCaller frontend = new QuotaCaller(connection(5001), "spiffe://prod/frontend");
    QuotaCaller intruder = new QuotaCaller(connection(5002), "spiffe://prod/batch");
    assertThat(ask(service, frontend, "task-1", 600)).isEqualTo(600);

    assertThat(ask(service, intruder, "task-1", 1000)).as("its own lease, of what is left").isEqualTo(400);
    service.releaseCapacity(intruder, release("task-1"));

    assertThat(service.clients("db")).as("the frontend's lease stands").isEqualTo(1);
    assertThat(service.granted("db")).isEqualTo(600);
    assertThat(service.duplicateClientIds()).as("two identities are not one process twice").isZero();
    assertThat(ask(service, frontend, "task-1", 600)).isEqualTo(600);
  }

  /**
   * Over real gRPC transports (in-process, in virtual time): two quota clients sharing an id on
   * two channels enforce 500 + 0 beside a third client's 500, not 500 + 500 + 500; once the first
   * closes, the second takes the lease over.
   */
  @Test
  void overRealTransportsTwoProcessesSharingAnIdEnforceNoMoreThanTheCapacity() throws Exception {
    try (VirtualTimeFleet time = new VirtualTimeFleet()) {
      QuotaService service = QuotaService.create(List.of(ResourceConfig.of("db", 1000).withLease(LEASE, REFRESH)), false, time.clock());
      QuotaServer server = time.startServer(service);
      List<ResourceQuota> quotas = new ArrayList<>();
      List<QuotaClient> clients = new ArrayList<>();
      String[] ids = {"shared", "shared", "other"};
      for (int i = 0; i < 3; i++) {
        QuotaClient client = QuotaClient.builder(time.quotaChannel(i), ids[i]).executor(time.executor()).clock(time.clock()).seed(i).build();
        clients.add(client);
        quotas.add(client.resource("db").wants(800).start());
        time.advance(Duration.ofMillis(1));
      }
      time.advance(REFRESH.multipliedBy(3));

      assertThat(quotas).extracting(ResourceQuota::rate).containsExactly(500.0, 0.0, 500.0);
      assertThat(service.granted("db")).isEqualTo(1000);
      assertThat(service.duplicateClientIds()).isPositive();

      clients.get(0).close();
      time.advance(REFRESH.multipliedBy(3));

      assertThat(quotas.get(1).rate()).as("the second process, once the first released the lease").isEqualTo(500);
      assertThat(service.granted("db")).isEqualTo(1000);
      clients.forEach(QuotaClient::close);
      server.kill();
    }
  }
}
