package dev.ballast.quota;

import static dev.ballast.quota.TestMessages.granted;
import static dev.ballast.quota.TestMessages.has;
import static dev.ballast.quota.TestMessages.lease;
import static dev.ballast.quota.TestMessages.release;
import static dev.ballast.quota.TestMessages.resource;
import static dev.ballast.quota.TestMessages.response;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.overload.Backoff;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's lease in manual time, against a fake service that answers when the test says. */
final class ResourceQuotaTest {
  private final FakeClock clock = new FakeClock();
  private final FakeScheduler scheduler = new FakeScheduler(clock);
  private final FakeService service = new FakeService();
  private final ManagedChannel unusedChannel = NettyChannelBuilder.forTarget("127.0.0.1:1").usePlaintext().build();
  private final QuotaClient client = QuotaClient.builder(unusedChannel, "client-1")
      .clock(clock)
      .backoff(Backoff.builder().initial(Duration.ofMillis(100)).multiplier(2).cap(Duration.ofMillis(400)).build())
      .seed(7)
      .build(service, QuotaTimer.of(scheduler));

  @AfterEach
  void closeChannel() {
    unusedChannel.shutdownNow();
  }

  static final class FakeService implements QuotaTransport {
    final List<GetCapacityRequest> requests = new ArrayList<>();
    final List<BiConsumer<GetCapacityResponse, Throwable>> pending = new ArrayList<>();
    final List<ReleaseCapacityRequest> released = new ArrayList<>();
    int reconnects;

    @Override
    public synchronized void getCapacity(GetCapacityRequest request, long timeoutNanos, BiConsumer<GetCapacityResponse, Throwable> done) {
      requests.add(request);
      pending.add(done);
    }

    @Override
    public void releaseCapacity(ReleaseCapacityRequest request, long timeoutNanos) {
      released.add(request);
    }

    @Override
    public void reconnectNow() {
      reconnects++;
    }

    ResourceRequest last() {
      GetCapacityRequest request = requests.get(requests.size() - 1);
      return request.getResource(0);
    }

    void grant(double capacity, long leaseMillis, long refreshMillis, double safe) {
      BiConsumer<GetCapacityResponse, Throwable> done = pending.remove(0);
      done.accept(response(granted("db", lease(capacity, leaseMillis, refreshMillis), safe)), null);
    }

    void fail() {
      pending.remove(0).accept(null, Status.UNAVAILABLE.withDescription("down").asRuntimeException());
    }
  }

  private static int admitted(ResourceQuota quota, int tries) {
    int admitted = 0;
    for (int i = 0; i < tries; i++) {
      if (quota.tryAcquire()) {
        admitted++;
      }
    }
    return admitted;
  }

  /** The bounds the service keeps on requests, the client keeps on answers: a bad one is a failed call, not a lease. */
  @Test
  void anAnswerOutOfBoundsIsAFailedCallNotALease() {
    ResourceQuota db = client.resource("db").wants(40).safeCapacity(5).start();
    service.grant(Double.NaN, 2_000, 500, 1);
    assertThat(db.failedCalls()).isEqualTo(1);
    assertThat(db.leases()).isZero();
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.NO_LEASE_YET);
    assertThat(db.rate()).as("the client's own safe capacity").isEqualTo(5);
    scheduler.advance(Duration.ofMillis(400));
    service.grant(20, 2_000, 500, -1);
    assertThat(db.failedCalls()).isEqualTo(2);
    assertThat(db.leases()).isZero();
  }

  @Test
  void asksForItsDemandAndEnforcesTheLeaseWithItsBucket() {
    ResourceQuota db = client.resource("db").wants(40).weight(2).burst(5).start();
    assertThat(service.requests).hasSize(1);
    assertThat(service.last()).isEqualTo(resource("db", 40, null, 2));
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.NO_LEASE_YET);
    assertThat(db.rate()).isZero();

    service.grant(20, 3_000, 1_000, 4);
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.LEASE);
    assertThat(db.rate()).isEqualTo(20);
    assertThat(admitted(db, 100)).as("the burst").isEqualTo(5);
    scheduler.advance(Duration.ofMillis(500));
    assertThat(admitted(db, 100)).as("half a second at 20 per second").isEqualTo(5);
    scheduler.advance(Duration.ofMillis(100));
    assertThat(admitted(db, 100)).isEqualTo(2);
  }

  @Test
  void refreshesAtTheServersIntervalReportingTheLeaseItHolds() {
    client.resource("db").wants(40).start();
    service.grant(20, 3_000, 1_000, 4);
    scheduler.advance(Duration.ofMillis(999));
    assertThat(service.requests).hasSize(1);
    scheduler.advance(Duration.ofMillis(1));
    assertThat(service.requests).hasSize(2);
    assertThat(has(service.last())).isEqualTo(lease(20, 2_000, 0));
  }

  @Test
  void aNewDemandIsReportedAtOnceOrRightAfterTheCallInFlight() {
    ResourceQuota db = client.resource("db").wants(40).start();
    db.setWants(50);
    assertThat(service.requests).as("one call at a time").hasSize(1);
    service.grant(20, 3_000, 1_000, 4);
    assertThat(service.requests).hasSize(2);
    assertThat(service.last().getWants()).isEqualTo(50);
    service.grant(25, 3_000, 1_000, 4);
    db.setWants(10);
    assertThat(service.requests).hasSize(3);
    assertThat(service.last().getWants()).isEqualTo(10);
    assertThatThrownBy(() -> db.setWants(Double.NaN)).hasMessage("wants: NaN (expected: 0..1e12)");
  }

  @Test
  void keepsTheLeaseThroughFailuresUntilItExpiresThenFallsBackToTheSafeCapacity() {
    ResourceQuota db = client.resource("db").wants(40).start();
    service.grant(20, 3_000, 1_000, 4);
    scheduler.advance(Duration.ofSeconds(1));
    int calls = service.requests.size();
    // The service is down: every call fails, retried with backoff until the lease expires.
    long start = clock.nanoTime();
    while (clock.nanoTime() - start < Duration.ofMillis(1_999).toNanos()) {
      if (!service.pending.isEmpty()) {
        service.fail();
      }
      scheduler.advance(Duration.ofMillis(1));
    }
    assertThat(service.requests.size() - calls).as("retries within the backoff's bounds").isGreaterThanOrEqualTo(5);
    assertThat(service.reconnects).isPositive();
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.LEASE);
    assertThat(db.rate()).isEqualTo(20);
    while (!service.pending.isEmpty()) {
      service.fail();
    }
    scheduler.advance(Duration.ofMillis(1));
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.SAFE_CAPACITY);
    assertThat(db.rate()).isEqualTo(4);
    // Back: the next retry gets a lease, and it reports none held.
    scheduler.advance(Duration.ofMillis(400));
    assertThat(service.pending).isNotEmpty();
    assertThat(has(service.last())).isNull();
    service.grant(30, 3_000, 1_000, 4);
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.LEASE);
    assertThat(db.rate()).isEqualTo(30);
  }

  @Test
  void closeReleasesTheLeaseAndStopsRefreshing() {
    ResourceQuota db = client.resource("db").wants(40).start();
    service.grant(20, 3_000, 1_000, 4);
    db.close();
    assertThat(service.released).containsExactly(release("client-1", "db"));
    assertThat(db.tryAcquire()).isTrue(); // tokens accrued before the close remain
    scheduler.advance(Duration.ofSeconds(10));
    assertThat(service.requests).hasSize(1);
    assertThat(db.rate()).isZero();
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void settingsAreValidatedNamingTheValue() {
    assertThatThrownBy(() -> client.resource("db").wants(-1)).hasMessage("wants: -1 (expected: 0..1e12)");
    assertThatThrownBy(() -> client.resource("db").weight(0)).hasMessage("weight: 0 (expected: 1e-6..1e6)");
    assertThatThrownBy(() -> client.resource("db").burst(0)).hasMessage("burst: 0 (expected: 1..1000000000)");
    assertThatThrownBy(() -> client.resource("")).hasMessage("resourceId: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
    assertThatThrownBy(() -> QuotaClient.builder(unusedChannel, "")).hasMessage("clientId: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
  }
}
