package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static io.grpc.ConnectivityState.READY;
import static io.grpc.ConnectivityState.TRANSIENT_FAILURE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.FakeHelper.FakeSubchannel;
import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.RequestOutcome;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.ResolvedAddresses;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The balancer against a fake channel: what real servers cannot make happen on demand. */
final class BallastLoadBalancerTest {
  private static final long SECOND = 1_000_000_000L;

  private final FakeHelper helper = new FakeHelper();
  private final BallastLoadBalancer lb =
      new BallastLoadBalancer(helper, helper.time.clock(), helper.time.clock(), () -> parse(json()));

  private static BallastConfig parse(Map<String, ?> json) {
    return new BallastConfigParser(name -> null, name -> null, 1, (level, message) -> {}).parse(json);
  }

  private void resolve(Map<String, ?> config, int... ports) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (int port : ports) {
      groups.add(new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", port)));
    }
    helper.inContext(
        () ->
            assertThat(
                    lb.acceptResolvedAddresses(
                        ResolvedAddresses.newBuilder()
                            .setAddresses(groups)
                            .setLoadBalancingPolicyConfig(parse(config))
                            .build()))
                .isEqualTo(Status.OK));
  }

  private PickResult pick() {
    return helper.picker.pickSubchannel(ARGS);
  }

  /** What gRPC does when the picked subchannel has a transport: it opens a stream with the tracer. */
  private static ClientStreamTracer startStream(PickResult result) {
    return result.getStreamTracerFactory()
        .newClientStreamTracer(ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
  }

  private Backend backend(int port) {
    return lb.balancer().backend("127.0.0.1:" + port);
  }

  @Test
  void picksThatGrpcDroppedAreReleasedOnceTheSubchannelLostItsConnection() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin"), 9001);
    FakeSubchannel subchannel = helper.subchannelFor(":9001");
    helper.setState(subchannel, READY);
    assertThat(helper.state).isEqualTo(READY);

    ClientStreamTracer started = startStream(pick());
    // Two picks whose subchannel had lost its transport: gRPC drops them and picks again later.
    pick();
    pick();
    assertThat(backend(9001).activeRequests()).isEqualTo(3);

    helper.setState(subchannel, TRANSIENT_FAILURE);
    helper.advanceNanos(2 * SECOND);

    assertThat(backend(9001).activeRequests()).isEqualTo(1);
    started.streamClosed(Status.UNAVAILABLE);
    assertThat(backend(9001).activeRequests()).isZero();
    assertThat(backend(9001).requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(2);
    assertThat(backend(9001).requestsEnded(RequestOutcome.NETWORK_FAILURE)).isEqualTo(1);
  }

  /**
   * A connection rotation (GOAWAY, then IDLE, CONNECTING and READY again) usually takes
   * milliseconds: the picks gRPC dropped in it are released all the same, and a stream that was
   * started before it ends normally.
   */
  @Test
  void picksDroppedAroundAQuickReconnectAreReleasedToo() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin", "activeRequestLimit", 2), 9001);
    FakeSubchannel subchannel = helper.subchannelFor(":9001");
    helper.setState(subchannel, READY);
    ClientStreamTracer started = startStream(pick());

    for (int rotation = 0; rotation < 3; rotation++) {
      // One pick that gRPC dropped (no stream), then the server rotates the connection.
      assertThat(pick().getSubchannel()).isSameAs(subchannel);
      helper.setState(subchannel, ConnectivityState.IDLE);
      helper.setState(subchannel, ConnectivityState.CONNECTING);
      helper.setState(subchannel, READY);
      helper.advanceNanos(2 * SECOND);
      assertThat(backend(9001).activeRequests()).as("rotation %s", rotation).isEqualTo(1);
    }

    started.streamClosed(Status.OK);
    assertThat(backend(9001).activeRequests()).isZero();
    assertThat(backend(9001).requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(3);
    assertThat(backend(9001).requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
    // Picks after the last rotation that became streams are not touched.
    ClientStreamTracer later = startStream(pick());
    helper.advanceNanos(2 * SECOND);
    assertThat(backend(9001).activeRequests()).isEqualTo(1);
    later.streamClosed(Status.OK);
    assertThat(backend(9001).activeRequests()).isZero();
  }

  @Test
  void aCallThatFoundEveryBackendAtItsLimitGetsANewPickerWhenARequestEnds() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin", "activeRequestLimit", 1), 9001);
    helper.setState(helper.subchannelFor(":9001"), READY);
    ClientStreamTracer first = startStream(pick());

    PickResult waiting = pick();
    // No result: neither a subchannel nor an error nor a drop (PickResult.withNoResult()).
    assertThat(waiting.getSubchannel()).isNull();
    assertThat(waiting.isDrop()).isFalse();
    assertThat(waiting.getStatus().isOk()).isTrue();
    int published = helper.pickersPublished;

    first.inboundHeaders();
    first.streamClosed(Status.OK);

    assertThat(helper.pickersPublished).isEqualTo(published + 1);
    assertThat(pick().getSubchannel()).isSameAs(helper.subchannelFor(":9001"));
  }

  /**
   * A dropped pick holds the only slot until its epoch's grace ends; a call that found the backend
   * at its limit meanwhile waits in gRPC's queue, and must get a new picker when the drop is
   * released, as it would when a request ends.
   */
  @Test
  void aCallWaitingForCapacityGetsANewPickerWhenADroppedPickIsReleased() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin", "activeRequestLimit", 1), 9001);
    FakeSubchannel subchannel = helper.subchannelFor(":9001");
    helper.setState(subchannel, READY);
    // gRPC drops the pick: the connection was rotated in the meantime.
    assertThat(pick().getSubchannel()).isSameAs(subchannel);
    helper.setState(subchannel, ConnectivityState.IDLE);
    helper.setState(subchannel, ConnectivityState.CONNECTING);
    helper.setState(subchannel, READY);
    PickResult waiting = pick();
    assertThat(waiting.getSubchannel()).isNull();
    assertThat(waiting.getStatus().isOk()).isTrue();
    int published = helper.pickersPublished;

    helper.advanceNanos(2 * SECOND);

    assertThat(backend(9001).activeRequests()).isZero();
    assertThat(helper.pickersPublished).isGreaterThan(published);
    assertThat(pick().getSubchannel()).isSameAs(subchannel);
  }

  @Test
  void whenNoBackendAcceptsConnectionsCallsFailFastWithTheReason() {
    resolve(json("subsetSize", 2, "clientIndex", 0, "policy", "round_robin"), 9001, 9002);
    helper.setState(helper.subchannelFor(":9001"), TRANSIENT_FAILURE);
    helper.setState(helper.subchannelFor(":9002"), TRANSIENT_FAILURE);

    assertThat(helper.state).isEqualTo(TRANSIENT_FAILURE);
    assertThat(pick().getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(pick().getStatus().getDescription()).contains("none of 2 backends accepts requests");
  }

  /**
   * While every backend is down the channel stays in TRANSIENT_FAILURE through the reconnect
   * attempts, so calls keep failing fast instead of waiting for each attempt; the first backend
   * that connects and serves ends it.
   */
  @Test
  void transientFailureIsStickyThroughReconnectAttemptsUntilABackendConnects() {
    resolve(json("subsetSize", 2, "clientIndex", 0, "policy", "round_robin"), 9001, 9002);
    FakeSubchannel first = helper.subchannelFor(":9001");
    FakeSubchannel second = helper.subchannelFor(":9002");
    helper.setState(first, ConnectivityState.CONNECTING);
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    helper.setState(first, TRANSIENT_FAILURE);
    helper.setState(second, TRANSIENT_FAILURE);

    helper.setState(first, ConnectivityState.CONNECTING);
    helper.setState(second, ConnectivityState.IDLE);
    helper.setState(second, ConnectivityState.CONNECTING);

    assertThat(helper.state).isEqualTo(TRANSIENT_FAILURE);
    assertThat(pick().getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(backend(9001).state()).isEqualTo(BackendState.REFUSING);

    helper.setState(first, READY);
    assertThat(helper.state).isEqualTo(READY);
    assertThat(pick().getSubchannel()).isSameAs(first);
  }

  /** A subset of one backend, 127.0.0.1:9001, connected and serving, under round robin. */
  private FakeSubchannel onlyBackendReady() {
    resolve(json("subsetAlgorithm", "deterministic", "subsetSize", 1, "clientIndex", 0, "clientCount", 1,
        "policy", "round_robin"), 9001);
    FakeSubchannel member = helper.subchannels.get(0);
    helper.setState(member, READY);
    return member;
  }

  /**
   * A trailer that is not a well-formed report is ignored, without failing the call, and
   * recorded: logged as a warning that names the backend at the 1st, 2nd and 4th such response.
   */
  @Test
  void aMalformedLoadReportIsIgnoredAndLoggedWithoutFloodingTheLog() {
    FakeSubchannel member = onlyBackendReady();
    Metadata trailers = new Metadata();
    // A tag whose varint never ends.
    trailers.put(OrcaTrailer.KEY, new byte[] {(byte) 0xff});

    List<Integer> warnings = new ArrayList<>();
    for (int call = 1; call <= 5; call++) {
      ClientStreamTracer stream = startStream(pick());
      stream.inboundTrailers(trailers);
      stream.streamClosed(Status.OK);
      warnings.add((int) member.logged.stream().filter(line -> line.startsWith("WARNING")).count());
    }

    assertThat(warnings).containsExactly(1, 2, 2, 3, 3);
    assertThat(member.logged.get(0))
        .isEqualTo("WARNING ballast: 127.0.0.1:9001 sent a malformed load report (1 bytes in"
            + " endpoint-load-metrics-bin; expected: a serialized xds.data.orca.v3.OrcaLoadReport), ignored; 1 so far");
    assertThat(backend(9001).requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(5);
    assertThat(backend(9001).activeRequests()).isZero();
  }

  /** A well-formed report with a NaN field is rejected by the core, and logged here, where a channel's user sees it. */
  @Test
  void aLoadReportWithANanFieldIsLoggedWithItsValues() {
    FakeSubchannel member = onlyBackendReady();
    Metadata trailers = new Metadata();
    trailers.put(OrcaTrailer.KEY, OrcaTrailer.report(Double.NaN, 0, 100, 0).toByteArray());

    ClientStreamTracer stream = startStream(pick());
    stream.inboundTrailers(trailers);
    stream.streamClosed(Status.OK);

    assertThat(member.logged)
        .containsExactly("WARNING ballast: 127.0.0.1:9001 sent a load report with a negative, NaN or infinite field"
            + " (cpu_utilization=NaN, application_utilization=0.0, rps=100.0, eps=0.0; expected: every"
            + " field 0 or more and finite), ignored; 1 so far");
    assertThat(backend(9001).requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
  }

  @Test
  void aLameDuckSignalBringsInAStandInUntilTheMemberServesAgain() {
    resolve(json("subsetAlgorithm", "deterministic", "subsetSize", 1, "clientIndex", 0, "clientCount", 2,
        "policy", "round_robin"), 9001, 9002);
    assertThat(helper.liveSubchannels()).isEqualTo(1);
    FakeSubchannel member = helper.subchannels.get(0);
    helper.setState(member, READY);
    PickResult result = pick();
    assertThat(result.getSubchannel()).isSameAs(member);
    ClientStreamTracer call = startStream(result);

    Metadata trailers = new Metadata();
    trailers.put(LameDuckSignal.TRAILER, LameDuckSignal.VALUE);
    call.inboundTrailers(trailers);
    call.streamClosed(Status.OK);

    assertThat(helper.liveSubchannels()).isEqualTo(2);
    FakeSubchannel standIn = helper.subchannels.get(1);
    helper.setState(standIn, READY);
    assertThat(pick().getSubchannel()).isSameAs(standIn);

    // The member restarts: it loses its connection, reconnects and answers its health check.
    helper.setState(member, TRANSIENT_FAILURE);
    helper.setState(member, READY);

    assertThat(standIn.shutdown).isTrue();
    assertThat(pick().getSubchannel()).isSameAs(member);
  }

  @Test
  void aServingBackendThatReconnectsGetsNoStandInButALameDuckThatDisconnectsKeepsIt() {
    resolve(json("subsetAlgorithm", "deterministic", "subsetSize", 1, "clientIndex", 0, "clientCount", 2,
        "policy", "round_robin"), 9001, 9002);
    FakeSubchannel member = helper.subchannels.get(0);
    helper.setState(member, READY);

    // A routine reconnect (the server rotated its connection): no outage, no stand-in.
    helper.setState(member, ConnectivityState.IDLE);
    assertThat(member.connectionRequests).isEqualTo(2);
    helper.setState(member, ConnectivityState.CONNECTING);
    assertThat(helper.liveSubchannels()).isEqualTo(1);
    helper.setState(member, READY);

    // A lame duck that closes its connection is going away: its stand-in stays through the reconnect.
    ClientStreamTracer call = startStream(pick());
    Metadata trailers = new Metadata();
    trailers.put(LameDuckSignal.TRAILER, LameDuckSignal.VALUE);
    call.inboundTrailers(trailers);
    call.streamClosed(Status.OK);
    assertThat(helper.liveSubchannels()).isEqualTo(2);
    helper.setState(member, ConnectivityState.IDLE);
    helper.setState(member, ConnectivityState.CONNECTING);
    assertThat(helper.liveSubchannels()).isEqualTo(2);
    helper.setState(member, READY);
    assertThat(helper.liveSubchannels()).isEqualTo(1);
  }

  @Test
  void aLameDuckSignalFromAConnectionThatWasReplacedIsIgnored() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin"), 9001);
    FakeSubchannel subchannel = helper.subchannelFor(":9001");
    helper.setState(subchannel, READY);
    ClientStreamTracer oldCall = startStream(pick());

    // The old process drains its last call while the new one is already serving.
    helper.setState(subchannel, TRANSIENT_FAILURE);
    helper.setState(subchannel, READY);
    Metadata trailers = new Metadata();
    trailers.put(LameDuckSignal.TRAILER, LameDuckSignal.VALUE);
    oldCall.inboundTrailers(trailers);
    oldCall.streamClosed(Status.OK);

    assertThat(backend(9001).state()).isEqualTo(BackendState.HEALTHY);
  }

  /**
   * A health check sent before the backend entered lame duck may answer SERVING after the lame
   * duck signal on a response: that answer is older than the signal and must not undo it. A check
   * sent after the signal decides: SERVING then is a real recovery.
   */
  @Test
  void aServingAnswerThatPredatesALameDuckSignalDoesNotUndoIt() {
    helper.holdHealthChecks = true;
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin"), 9001);
    FakeSubchannel subchannel = helper.subchannelFor(":9001");
    helper.setState(subchannel, READY);
    helper.inContext(() -> subchannel.answerHealthCheck(ServingStatus.SERVING));
    assertThat(backend(9001).state()).isEqualTo(BackendState.HEALTHY);

    // The periodic check goes out; before its answer arrives, a response carries the signal.
    helper.advanceNanos(5 * SECOND);
    assertThat(subchannel.healthChecks).hasSize(1);
    ClientStreamTracer call = startStream(pick());
    Metadata trailers = new Metadata();
    trailers.put(LameDuckSignal.TRAILER, LameDuckSignal.VALUE);
    call.inboundTrailers(trailers);
    call.streamClosed(Status.OK);
    assertThat(backend(9001).state()).isEqualTo(BackendState.LAME_DUCK);

    helper.inContext(() -> subchannel.answerHealthCheck(ServingStatus.SERVING));

    assertThat(backend(9001).state()).isEqualTo(BackendState.LAME_DUCK);
    assertThat(pick().getSubchannel()).isNull();
    // The balancer asks again at once; this answer postdates the signal.
    assertThat(subchannel.healthChecks).hasSize(1);
    helper.inContext(() -> subchannel.answerHealthCheck(ServingStatus.NOT_SERVING));
    assertThat(backend(9001).state()).isEqualTo(BackendState.LAME_DUCK);
    helper.advanceNanos(5 * SECOND);
    helper.inContext(() -> subchannel.answerHealthCheck(ServingStatus.SERVING));
    assertThat(backend(9001).state()).isEqualTo(BackendState.HEALTHY);
    assertThat(pick().getSubchannel()).isSameAs(subchannel);
  }

  @Test
  void aCancelledCallIsNeverHeldAgainstTheBackendAndAnUnansweredFailureIsTheNetworks() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin"), 9001);
    helper.setState(helper.subchannelFor(":9001"), READY);

    startStream(pick()).streamClosed(Status.DEADLINE_EXCEEDED);
    startStream(pick()).streamClosed(Status.CANCELLED);
    startStream(pick()).streamClosed(Status.UNAVAILABLE);
    ClientStreamTracer answered = startStream(pick());
    answered.inboundTrailers(new Metadata());
    answered.streamClosed(Status.INTERNAL);
    startStream(pick()).streamClosed(Status.NOT_FOUND);

    Backend backend = backend(9001);
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(2);
    assertThat(backend.requestsEnded(RequestOutcome.NETWORK_FAILURE)).isEqualTo(1);
    assertThat(backend.requestsEnded(RequestOutcome.BACKEND_FAILURE)).isEqualTo(1);
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
  }

  @Test
  void removingABackendTouchesOnlyTheSubchannelsWhoseMembershipChanged() {
    Map<String, ?> config = json("subsetAlgorithm", "rendezvous", "subsetSize", 2, "clientIndex", 0,
        "policy", "round_robin");
    int[] ports = {9001, 9002, 9003, 9004, 9005, 9006};
    resolve(config, ports);
    List<String> members = new ArrayList<>();
    helper.subchannels.forEach(s -> members.add(s.addresses.get(0).getAddresses().get(0).toString()));
    int outsider = 0;
    for (int port : ports) {
      if (members.stream().noneMatch(m -> m.endsWith(":" + port))) {
        outsider = port;
      }
    }
    int kept = outsider;

    // Without a backend that is not in the subset: nothing to do.
    resolve(config, java.util.Arrays.stream(ports).filter(p -> p != kept).toArray());
    assertThat(helper.subchannels).hasSize(2).noneMatch(s -> s.shutdown);

    // Without a member: its subchannel goes and exactly one replaces it.
    FakeSubchannel removed = helper.subchannels.get(0);
    int removedPort = ((InetSocketAddress) removed.addresses.get(0).getAddresses().get(0)).getPort();
    resolve(config, java.util.Arrays.stream(ports).filter(p -> p != kept && p != removedPort).toArray());
    assertThat(removed.shutdown).isTrue();
    assertThat(helper.subchannels).hasSize(3);
    assertThat(helper.liveSubchannels()).isEqualTo(2);
    assertThat(helper.subchannels.get(1).shutdown).isFalse();
  }

  @Test
  void aNewConfigStartsOverWhileTheSameConfigKeepsEverySubchannel() {
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin"), 9001);
    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "round_robin"), 9001);
    assertThat(helper.subchannels).hasSize(1);

    resolve(json("subsetSize", 1, "clientIndex", 0, "policy", "least_loaded_round_robin"), 9001);

    assertThat(helper.subchannels).hasSize(2);
    assertThat(helper.subchannels.get(0).shutdown).isTrue();
    assertThat(lb.balancer().policy().name()).isEqualTo("least_loaded_round_robin");
  }

  /**
   * Health answers that change nothing (here every second, between picks) leave the subset as it
   * was, so round robin keeps its place: each of three backends gets exactly a third of the picks.
   * A new picker at every answer would start round robin over at a random backend each time.
   */
  @Test
  void healthAnswersThatChangeNothingKeepTheRoundRobinPosition() {
    resolve(json("subsetAlgorithm", "rendezvous", "subsetSize", 3, "clientIndex", 0, "policy", "round_robin",
        "healthCheckInterval", "1s"), 9001, 9002, 9003);
    for (FakeSubchannel subchannel : helper.subchannels) {
      helper.setState(subchannel, READY);
    }
    Map<Object, Integer> picks = new java.util.HashMap<>();
    int published = helper.pickersPublished;
    for (int i = 0; i < 300; i++) {
      if (i % 7 == 0) {
        helper.advanceNanos(SECOND);
      }
      PickResult result = pick();
      picks.merge(result.getSubchannel(), 1, Integer::sum);
      startStream(result).streamClosed(Status.OK);
    }

    assertThat(helper.pickersPublished).as("pickers published by health answers").isGreaterThan(published + 40);
    assertThat(picks.values()).containsExactly(100, 100, 100);
  }

  /** A new subset size only changes the subset: the members that stay keep their subchannels and statistics. */
  @Test
  void aSubsetSizeChangeKeepsTheBalancerAndTheSubchannelsOfMembersThatStay() {
    resolve(json("subsetAlgorithm", "rendezvous", "subsetSize", 2, "clientIndex", 0, "policy", "round_robin"),
        9001, 9002, 9003);
    assertThat(helper.subchannels).hasSize(2);
    Object before = lb.balancer();

    resolve(json("subsetAlgorithm", "rendezvous", "subsetSize", 3, "clientIndex", 0, "policy", "round_robin"),
        9001, 9002, 9003);

    assertThat(helper.subchannels).as("subchannels created in all").hasSize(3);
    assertThat(helper.subchannels).noneMatch(subchannel -> subchannel.shutdown);
    assertThat(lb.balancer()).isSameAs(before);
  }

  private static final PickSubchannelArgs ARGS =
      new PickSubchannelArgs() {
        @Override
        public CallOptions getCallOptions() {
          return CallOptions.DEFAULT;
        }

        @Override
        public Metadata getHeaders() {
          return new Metadata();
        }

        @Override
        public MethodDescriptor<?, ?> getMethodDescriptor() {
          return EchoService.CALL;
        }
      };
}
