package dev.ballast.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.testing.FakeClock;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's calls to the service over gRPC (in-process, in virtual time): their deadlines and their context. */
final class GrpcQuotaTransportTest {
  private static final Duration RPC_TIMEOUT = Duration.ofMillis(500);

  private final VirtualTimeFleet time = new VirtualTimeFleet();
  private final List<Server> servers = new ArrayList<>();
  private final QuotaClient client = QuotaClient.builder(time.quotaChannel(0), "client-0")
      .executor(time.executor())
      .clock(time.clock())
      .rpcTimeout(RPC_TIMEOUT)
      .seed(1)
      .build();

  @AfterEach
  void stop() {
    client.close();
    time.close();
    servers.forEach(Server::shutdownNow);
  }

  private void serve(ServerServiceDefinition service) throws Exception {
    servers.add(time.serverBuilder().addService(service).build().start());
  }

  private static QuotaService service() {
    return QuotaService.create(List.of(ResourceConfig.of("db", 100)), false, new FakeClock());
  }

  @Test
  void aCallsDeadlineCountsOnTheClientsClock() throws Exception {
    List<Long> remainingNanos = new ArrayList<>();
    ServerInterceptor deadlines = new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        remainingNanos.add(Context.current().getDeadline().timeRemaining(TimeUnit.NANOSECONDS));
        return Contexts.interceptCall(Context.current(), call, headers, next);
      }
    };
    serve(ServerInterceptors.intercept(service(), deadlines));

    ResourceQuota db = client.resource("db").wants(40).start();

    assertThat(db.source()).isEqualTo(ResourceQuota.Source.LEASE);
    // On the system clock some nanoseconds would pass between setting the deadline and sending it.
    assertThat(remainingNanos).as("the deadline the server received").containsExactly(RPC_TIMEOUT.toNanos());
  }

  @Test
  void aCallTheServiceDoesNotAnswerFailsAtItsDeadlineInTheClientsTime() throws Exception {
    List<StreamObserver<GetCapacityResponse>> unanswered = new ArrayList<>();
    serve(new QuotaGrpc.QuotaImplBase() {
      @Override
      public void getCapacity(GetCapacityRequest request, StreamObserver<GetCapacityResponse> response) {
        unanswered.add(response);
      }
    }.bindService());

    ResourceQuota db = client.resource("db").wants(40).start();
    time.advance(RPC_TIMEOUT.minusNanos(1));
    assertThat(unanswered).hasSize(1);
    assertThat(db.failedCalls()).isZero();
    time.advance(Duration.ofNanos(1));
    assertThat(db.failedCalls()).as("failed at the deadline").isEqualTo(1);
    assertThat(db.source()).isEqualTo(ResourceQuota.Source.NO_LEASE_YET);
  }

  @Test
  void aNewDemandSetWhileHandlingACancelledRequestStillReachesTheService() throws Exception {
    QuotaService service = service();
    serve(service.bindService());
    ResourceQuota db = client.resource("db").wants(40).start();
    Context.CancellableContext request = Context.current().withCancellation();
    request.cancel(null);

    request.run(() -> db.setWants(150));

    assertThat(db.failedCalls()).isZero();
    assertThat(db.rate()).as("the whole capacity, which only the new demand gets").isEqualTo(100);
    assertThat(service.granted("db")).isEqualTo(100);
  }
}
