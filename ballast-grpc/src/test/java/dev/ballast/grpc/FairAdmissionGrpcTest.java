package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.TestCertificates;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.FairAdmissionConfig;
import dev.ballast.overload.LimiterConfig;
import dev.ballast.testing.FakeClock;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fair admission over real loopback calls: a caller that sends far above its share is shed while a
 * quiet caller is not. Counts only; the server's limiter runs in virtual time, one 100 ms slot per
 * round, so that its shares do not depend on the machine's speed.
 */
final class FairAdmissionGrpcTest {
  private static final int SLOTS = 30;
  private static final int WARMUP_SLOTS = 10;
  private static final int NOISY_PER_SLOT = 6;

  /** A limiter held at 4 in flight, whatever it measures. */
  private static LimiterConfig heldAt4() {
    return LimiterConfig.builder().kind(LimiterConfig.Kind.GRADIENT).minLimit(4).maxLimit(4).initialLimit(4)
        .criticalityShares(1, 1, 1, 1).build();
  }

  /** What one run counted: the quiet caller's sheds and the noisy caller's, after the warm-up. */
  private record Counts(int quietSent, int quietShed, int noisySent, int noisyShed, List<AdmissionLimiter.Caller> mostShed) {}

  private static Channel as(ManagedChannel channel, String caller) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of(BallastCalls.CALLER_HEADER_NAME, Metadata.ASCII_STRING_MARSHALLER), caller);
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /** How the two callers reach the server: their channels, to close, and the channel each calls on. */
  private record Callers(List<ManagedChannel> channels, Channel noisy, Channel quiet) {}

  /** Over plaintext: each caller names itself in the {@code ballast-caller} header, which the server believes. */
  private static Counts run(FairAdmissionConfig fairness) throws Exception {
    return run(fairness, NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), port -> {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      return new Callers(List.of(channel), as(channel, "noisy"), as(channel, "quiet"));
    });
  }

  private static Counts run(FairAdmissionConfig fairness, ServerBuilder<?> server, IntFunction<Callers> connect)
      throws Exception {
    FakeClock clock = new FakeClock();
    // Every call holds until released; each call's name is its request.
    Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();
    Map<String, CountDownLatch> release = new ConcurrentHashMap<>();
    CountDownLatch end = new CountDownLatch(1);
    BallastServer.Builder settings = BallastServer.builder().adaptiveLimiter(heldAt4()).fairAdmission(fairness);
    settings.clock(clock);
    try (TestBackend backend = TestBackend.startBallast(server, key -> (String name, StreamObserver<String> response) -> {
          entered.computeIfAbsent(name, n -> new CountDownLatch(1)).countDown();
          try {
            CountDownLatch mine = release.computeIfAbsent(name, n -> new CountDownLatch(1));
            while (!mine.await(10, TimeUnit.MILLISECONDS) && end.getCount() > 0) {
              // held until released, or the run ends
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          response.onNext(key);
          response.onCompleted();
        }, settings)) {
      Callers callers = connect.apply(backend.port);
      Channel noisy = callers.noisy();
      Channel quiet = callers.quiet();
      int quietSent = 0;
      int quietShed = 0;
      int noisySent = 0;
      int noisyShed = 0;
      Map<String, Future<String>> calls = new java.util.LinkedHashMap<>();
      try {
        for (int slot = 0; slot < SLOTS; slot++) {
          clock.advance(Duration.ofMillis(100));
          boolean measured = slot >= WARMUP_SLOTS;
          // The slot's first call recomputes the shares with the last slot's calls still in flight;
          // then those end: each call holds its place for one slot.
          Map<String, Future<String>> last = new java.util.LinkedHashMap<>(calls);
          calls.clear();
          for (int i = 0; i < NOISY_PER_SLOT; i++) {
            boolean shed = !send(noisy, "noisy-" + slot + "-" + i, entered, calls);
            if (measured) {
              noisySent++;
              noisyShed += shed ? 1 : 0;
            }
            if (i == 0) {
              for (String held : last.keySet()) {
                release.computeIfAbsent(held, n -> new CountDownLatch(1)).countDown();
              }
              for (Future<String> call : last.values()) {
                call.get(10, TimeUnit.SECONDS);
              }
            }
          }
          String name = "quiet-" + slot;
          if (!send(quiet, name, entered, calls) && measured) {
            quietShed++;
          }
          quietSent += measured ? 1 : 0;
        }
        return new Counts(quietSent, quietShed, noisySent, noisyShed, backend.ballast.callersMostShed(10));
      } finally {
        end.countDown();
        for (ManagedChannel channel : callers.channels()) {
          channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  /** Sends one call and waits until it runs (true) or is shed (false). */
  private static boolean send(Channel channel, String name, Map<String, CountDownLatch> entered, Map<String, Future<String>> calls)
      throws Exception {
    CountDownLatch running = entered.computeIfAbsent(name, n -> new CountDownLatch(1));
    Future<String> call = ClientCalls.futureUnaryCall(
        channel.newCall(EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)), name);
    while (!running.await(10, TimeUnit.MILLISECONDS)) {
      if (call.isDone()) {
        try {
          call.get();
        } catch (ExecutionException e) {
          StatusRuntimeException failure = (StatusRuntimeException) e.getCause();
          assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          return false;
        }
        throw new AssertionError(name + " ended without running");
      }
    }
    calls.put(name, call);
    return true;
  }

  @Test
  void aCallerFarAboveItsShareIsShedWhileAQuietCallerIsNot() throws Exception {
    Counts fair = run(FairAdmissionConfig.defaults());

    assertThat(fair.quietShed()).as("quiet caller's sheds of %d", fair.quietSent()).isZero();
    // The noisy caller wants 6 in flight of a limit of 4: at least 2 of its 6 a slot are shed.
    assertThat(fair.noisyShed()).isGreaterThanOrEqualTo(fair.noisySent() / 3);
    // The operator sees who was shed: the noisy caller first (the quiet one only while the shares were new).
    assertThat(fair.mostShed()).extracting(AdmissionLimiter.Caller::id).startsWith("noisy");
    assertThat(fair.mostShed().get(0).shed()).isGreaterThanOrEqualTo(fair.noisyShed());
  }

  /**
   * Behind mutual TLS the caller is the identity its certificate proves: the batch job's calls claim
   * to be the frontend's in the header, and it changes nothing.
   */
  @Test
  void behindTlsTheCallerIsItsCertificatesIdentityWhateverItsHeaderClaims(@TempDir Path files) throws Exception {
    TestCertificates.Cast tls = TestCertificates.Cast.make(files);
    Counts fair = run(FairAdmissionConfig.defaults(),
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), tls.mutualTls()), port -> {
          try {
            ManagedChannel batch = Grpc.newChannelBuilderForAddress("127.0.0.1", port, tls.credentials(tls.batch())).build();
            ManagedChannel frontend =
                Grpc.newChannelBuilderForAddress("127.0.0.1", port, tls.credentials(tls.frontend())).build();
            return new Callers(List.of(batch, frontend), as(batch, "spiffe://test/frontend"), frontend);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });

    assertThat(fair.quietShed()).as("the frontend's sheds of %d", fair.quietSent()).isZero();
    assertThat(fair.noisyShed()).isGreaterThanOrEqualTo(fair.noisySent() / 3);
    assertThat(fair.mostShed().get(0).id()).isEqualTo("spiffe://test/batch");
    assertThat(fair.mostShed()).extracting(AdmissionLimiter.Caller::id).doesNotContain("noisy", "quiet");
  }

  @Test
  void withoutFairAdmissionTheQuietCallerIsShedToo() throws Exception {
    Counts unfair = run(FairAdmissionConfig.disabled());

    // The noisy caller's calls, sent first each slot, fill the limit: the quiet caller's call is shed.
    assertThat(unfair.quietShed()).isEqualTo(unfair.quietSent());
    assertThat(unfair.noisyShed()).isEqualTo(unfair.noisySent() / 3);
  }
}
