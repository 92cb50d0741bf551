package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.grpc.testing.TestCertificates.Cast;
import dev.ballast.grpc.testing.TestCertificates.Issued;
import dev.ballast.overload.Criticality;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Ballast server behind mutual TLS, on loopback, with certificates made when the test runs: who
 * gets in, whose criticality header is believed, and what the per-caller rate limit keys on.
 */
final class BallastServerTlsTest {
  @TempDir static Path files;
  private static Cast tls;

  private final List<Criticality> served = new CopyOnWriteArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private BallastServer ballast;

  @BeforeAll
  static void makeCertificates() throws Exception {
    tls = Cast.make(files);
  }

  @AfterEach
  void stop() {
    channels.forEach(ManagedChannel::shutdownNow);
    if (ballast != null) {
      ballast.server().shutdownNow();
    }
  }

  private void start(BallastServer.Builder settings) throws Exception {
    ballast = settings.cpuUtilization(() -> 0.1).build(Grpc.newServerBuilderForPort(0, tls.mutualTls())
        .addService(EchoService.service((caller, response) -> {
          served.add(BallastCalls.currentCriticality());
          response.onNext("backend");
          response.onCompleted();
        }))).start();
  }

  private ManagedChannel channel(ChannelCredentials credentials) {
    ManagedChannel channel = Grpc.newChannelBuilderForAddress("localhost", ballast.server().getPort(), credentials).build();
    channels.add(channel);
    return channel;
  }

  private ManagedChannel channel(Issued client) throws Exception {
    return channel(tls.credentials(client));
  }

  /** A call claiming {@code criticality} in the header, with any other headers given as name, value. */
  private static String call(ManagedChannel channel, Criticality criticality, String... headers) {
    Metadata metadata = new Metadata();
    metadata.put(BallastCalls.CRITICALITY_HEADER, BallastCalls.header(criticality));
    for (int i = 0; i < headers.length; i += 2) {
      metadata.put(Metadata.Key.of(headers[i], Metadata.ASCII_STRING_MARSHALLER), headers[i + 1]);
    }
    return ClientCalls.blockingUnaryCall(ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(metadata)),
        EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), "client");
  }

  private static Status refused(ManagedChannel channel, Criticality criticality, String... headers) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> call(channel, criticality, headers));
    assertThat(e).as("a refused call").isNotNull();
    return e.getStatus();
  }

  @Test
  void onlyCallersWithACertificateOfTheAuthorityGetIn() throws Exception {
    start(BallastServer.builder());
    assertThat(call(channel(tls.frontend()), Criticality.CRITICAL)).isEqualTo("backend");

    assertThat(refused(channel((Issued) null), Criticality.CRITICAL).getCode()).as("no client certificate")
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused(channel(tls.stranger()), Criticality.CRITICAL).getCode()).as("another authority's certificate").isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused(channel(InsecureChannelCredentials.create()), Criticality.CRITICAL).getCode()).as("plaintext")
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(served).hasSize(1);
  }

  @Test
  void byDefaultEveryCallersHeaderIsBelieved() throws Exception {
    start(BallastServer.builder());
    call(channel(tls.batch()), Criticality.CRITICAL_PLUS);
    assertThat(served).containsExactly(Criticality.CRITICAL_PLUS);
    assertThat(ballast.criticalityDowngrades()).isZero();
  }

  @Test
  void onlyIdentitiesMatchingThePatternMayClaimMoreThanTheDefaultAndTheRestAreDowngradedNotRefused() throws Exception {
    start(BallastServer.builder().criticalityTrust(CriticalityTrust.identitiesMatching("spiffe://test/frontend")));

    call(channel(tls.frontend()), Criticality.CRITICAL_PLUS);
    call(channel(tls.batch()), Criticality.CRITICAL_PLUS);
    call(channel(tls.batch()), Criticality.SHEDDABLE);

    assertThat(served).containsExactly(Criticality.CRITICAL_PLUS, Criticality.CRITICAL, Criticality.SHEDDABLE);
    assertThat(ballast.criticalityDowngrades()).as("the batch job's CRITICAL_PLUS").isEqualTo(1);
  }

  @Test
  void aCapPerCallerDowngradesWhatIsClaimedAboveIt() throws Exception {
    Map<String, Criticality> caps = new LinkedHashMap<>();
    caps.put("spiffe://test/batch", Criticality.SHEDDABLE_PLUS);
    caps.put("spiffe://test/.*", Criticality.CRITICAL_PLUS);
    start(BallastServer.builder().criticalityTrust(CriticalityTrust.capped(caps, Criticality.SHEDDABLE)));

    call(channel(tls.batch()), Criticality.CRITICAL);
    call(channel(tls.batch()), Criticality.SHEDDABLE);
    call(channel(tls.frontend()), Criticality.CRITICAL_PLUS);

    assertThat(served).containsExactly(Criticality.SHEDDABLE_PLUS, Criticality.SHEDDABLE, Criticality.CRITICAL_PLUS);
    assertThat(ballast.criticalityDowngrades()).isEqualTo(1);
  }

  /** The per-caller rate limit on the certificate's identity: a header the caller writes changes nothing. */
  @Test
  void thePerCallerRateLimitKeysOnTheCertificatesIdentity() throws Exception {
    // Time stands still: no bucket refills during the test.
    start(BallastServer.builder().callerRateLimit(1, 2, CallerKey.certificate()).callerClock(() -> 0));
    ManagedChannel frontends = channel(tls.frontend());

    call(frontends, Criticality.CRITICAL, "x-caller", "one");
    call(frontends, Criticality.CRITICAL, "x-caller", "two");
    assertThat(refused(frontends, Criticality.CRITICAL, "x-caller", "three").getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    assertThat(call(channel(tls.batch()), Criticality.CRITICAL)).as("another identity, its own bucket").isEqualTo("backend");
    assertThat(ballast.callsOverCallerRate()).isEqualTo(1);
  }

  @Test
  void aPatternThatIsNotARegularExpressionIsRefusedNamingIt() {
    assertThatThrownBy(() -> CriticalityTrust.identitiesMatching("spiffe://(unclosed"))
        .hasMessageStartingWith("criticality trust: pattern 'spiffe://(unclosed' (expected: a regular expression: ");
  }
}
