package dev.ballast.quota;

import static dev.ballast.quota.TestMessages.release;
import static dev.ballast.quota.TestMessages.request;
import static dev.ballast.quota.TestMessages.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.grpc.testing.TestCertificates.Cast;
import dev.ballast.grpc.testing.TestCertificates.Issued;
import dev.ballast.quota.v1.QuotaGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quota server behind TLS and mutual TLS, on loopback, with certificates made when the test
 * runs: which calls get through, and whose leases a caller may touch.
 */
final class QuotaTlsTest {
  @TempDir static Path files;
  private static Cast tls;

  private final List<ManagedChannel> channels = new ArrayList<>();
  private QuotaServer quotaServer;

  @BeforeAll
  static void makeCertificates() throws Exception {
    tls = Cast.make(files);
  }

  @AfterEach
  void stop() {
    channels.forEach(ManagedChannel::shutdownNow);
    if (quotaServer != null) {
      quotaServer.close();
    }
  }

  private QuotaServer start(boolean mutual) {
    QuotaServerMain.Options options = new QuotaServerMain.Options("127.0.0.1", 0,
        List.of(ResourceConfig.of("db", 1000)), false,
        new QuotaServerMain.Tls(tls.server().certificate(), tls.server().privateKey(), mutual ? tls.authority().certificate() : null));
    quotaServer = QuotaServerMain.start(options);
    return quotaServer;
  }

  private ManagedChannel channel(ChannelCredentials credentials) {
    ManagedChannel channel = Grpc.newChannelBuilderForAddress("localhost", quotaServer.port(), credentials).build();
    channels.add(channel);
    return channel;
  }

  private ManagedChannel channel(Issued client) throws Exception {
    return channel(tls.credentials(client));
  }

  private static double ask(ManagedChannel channel, String clientId, double wants) {
    return ClientCalls.blockingUnaryCall(channel, QuotaGrpc.getGetCapacityMethod(), CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
        request(clientId, resource("db", wants))).getResource(0).getLease().getCapacity();
  }

  private static Status refused(ManagedChannel channel) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> ask(channel, "task-1", 10));
    assertThat(e).as("a refused call").isNotNull();
    return e.getStatus();
  }

  @Test
  void withMutualTlsACallerWithACertificateOfTheAuthorityGetsALease() throws Exception {
    start(true);
    assertThat(ask(channel(tls.frontend()), "task-1", 600)).isEqualTo(600);
  }

  @Test
  void withMutualTlsCallersWithoutACertificateOrWithAnotherAuthoritysOrInPlaintextAreRefused() throws Exception {
    start(true);
    assertThat(refused(channel((Issued) null)).getCode()).as("no client certificate").isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused(channel(tls.stranger())).getCode()).as("a certificate another authority signed, naming the frontend")
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused(channel(InsecureChannelCredentials.create())).getCode()).as("plaintext").isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(quotaServer.service().clients("db")).as("no lease granted").isZero();
  }

  /** The client id is the caller's to write; the identity is its certificate's, and a lease is the identity's. */
  @Test
  void withMutualTlsACallerCanNeitherTakeNorReleaseAnotherIdentitysLease() throws Exception {
    start(true);
    ManagedChannel frontends = channel(tls.frontend());
    ManagedChannel batches = channel(tls.batch());
    assertThat(ask(frontends, "task-1", 600)).isEqualTo(600);

    assertThat(ask(batches, "task-1", 1000)).as("the batch identity's own task-1, of what is left").isEqualTo(400);
    ClientCalls.blockingUnaryCall(batches, QuotaGrpc.getReleaseCapacityMethod(), CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
        release("task-1"));

    assertThat(quotaServer.service().granted("db")).as("the frontend's lease stands").isEqualTo(600);
    assertThat(ask(frontends, "task-1", 600)).isEqualTo(600);
    assertThat(quotaServer.service().duplicateClientIds()).isZero();
  }

  @Test
  void aQuotaClientKeepsItsLeaseOverMutualTls() throws Exception {
    start(true);
    CompletableFuture<Status> firstAnswer = new CompletableFuture<>();
    Channel channel = ClientInterceptors.intercept(channel(tls.frontend()), new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<RespT> listener, Metadata headers) {
            super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                super.onClose(status, trailers); // the quota takes its lease first
                firstAnswer.complete(status);
              }
            }, headers);
          }
        };
      }
    });
    try (QuotaClient client = QuotaClient.builder(channel, "task-1").seed(1).build()) {
      ResourceQuota db = client.resource("db").wants(300).start();
      assertThat(firstAnswer.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(db.failedCalls()).isZero();
      assertThat(db.rate()).isEqualTo(300);
    }
  }

  @Test
  void withServerTlsOnlyAnyClientThatTrustsTheServerGetsALease() throws Exception {
    start(false);
    assertThat(ask(channel((Issued) null), "task-1", 100)).isEqualTo(100);
    assertThat(refused(channel(InsecureChannelCredentials.create())).getCode()).as("plaintext").isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void badTlsAndHostFlagsAreOneLineErrorsNamingTheValue() throws Exception {
    Path missing = files.resolve("missing.pem");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--tls-cert", missing.toString(),
        "--tls-key", tls.server().privateKey().toString()}))
        .hasMessage("--tls-cert: '" + missing + "' (not a readable file; expected: a PEM file of the server's certificate chain)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--tls-cert", tls.server().certificate().toString()}))
        .hasMessage("--tls-key: missing (expected: --tls-cert and --tls-key together)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--tls-client-ca", tls.authority().certificate().toString()}))
        .hasMessage("--tls-cert: missing (expected: --tls-cert and --tls-key together, which --tls-client-ca needs)");
    Path notPem = Files.writeString(files.resolve("not.pem"), "not a certificate");
    QuotaServerMain.Options options = QuotaServerMain.parse(new String[] {"--port", "0", "--resource", "db=10",
        "--tls-cert", notPem.toString(), "--tls-key", tls.server().privateKey().toString()});
    assertThatThrownBy(() -> QuotaServerMain.start(options)).hasMessageStartingWith("--tls-cert: '" + notPem + "' (cannot use: ");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--host", "no-such-host.invalid"}))
        .hasMessage("--host: 'no-such-host.invalid' (unknown; expected: an IP address or a host name, 0.0.0.0 for every interface)");
  }
}
