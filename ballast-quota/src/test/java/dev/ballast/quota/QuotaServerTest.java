package dev.ballast.quota;

import static dev.ballast.quota.TestMessages.request;
import static dev.ballast.quota.TestMessages.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.testing.FakeClock;
import io.grpc.CallOptions;
import dev.ballast.grpc.testing.ByteMarshaller;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The service on a real loopback server: bad requests get clear errors and the server carries on. */
final class QuotaServerTest {
  private QuotaServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server = QuotaServer.start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
        QuotaService.create(List.of(ResourceConfig.of("db", 100)), false, new FakeClock()));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  private static final MethodDescriptor<byte[], GetCapacityResponse> RAW_GET_CAPACITY = QuotaGrpc.getGetCapacityMethod()
      .toBuilder(ByteMarshaller.INSTANCE, QuotaGrpc.getGetCapacityMethod().getResponseMarshaller()).build();

  private Status rawCall(byte[] request) {
    return rawCall(channel, request);
  }

  private static Status rawCall(ManagedChannel channel, byte[] request) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
        channel, RAW_GET_CAPACITY, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request));
    assertThat(e).as("an error").isNotNull();
    return e.getStatus();
  }

  private GetCapacityResponse call(GetCapacityRequest request) {
    return ClientCalls.blockingUnaryCall(
        channel, QuotaGrpc.getGetCapacityMethod(), CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
  }

  /** A request with one resource, written field by field so that any value can be sent. */
  private static byte[] rawRequest(String clientId, String resourceId, double wants) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    var out = com.google.protobuf.CodedOutputStream.newInstance(bytes);
    var resource = new ByteArrayOutputStream();
    var inner = com.google.protobuf.CodedOutputStream.newInstance(resource);
    inner.writeString(1, resourceId);
    inner.writeDouble(2, wants);
    inner.flush();
    if (!clientId.isEmpty()) {
      out.writeString(1, clientId);
    }
    out.writeByteArray(2, resource.toByteArray());
    out.flush();
    return bytes.toByteArray();
  }

  @Test
  void grantsALease() {
    GetCapacityResponse response = call(request("a", resource("db", 30)));
    assertThat(response.getResource(0).getLease().getCapacity()).isEqualTo(30);
  }

  @Test
  void garbageIsInvalidArgument() {
    Status status = rawCall(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 0x00});
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith("ballast quota: malformed GetCapacityRequest: ");
    assertThat(call(request("a", resource("db", 1))).getResourceList()).hasSize(1);
  }

  @Test
  void nanDemandIsInvalidArgumentNamingIt() throws Exception {
    Status status = rawCall(rawRequest("a", "db", Double.NaN));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("ballast quota: malformed GetCapacityRequest: wants: NaN (expected: 0..1e12)");
  }

  @Test
  void emptyClientIdIsInvalidArgument() throws Exception {
    Status status = rawCall(rawRequest("", "db", 1));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo(
        "ballast quota: malformed GetCapacityRequest: client_id: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
  }

  @Test
  void unknownResourceIsNotFound() throws Exception {
    Status status = rawCall(rawRequest("a", "cache", 1));
    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).isEqualTo("ballast quota: resource_id: 'cache' (expected: one of 'db')");
  }

  /**
   * Forty resources named with 256 characters each used to be listed whole in the NOT_FOUND of an
   * unknown one: 10,375 characters, past the 8 KiB that gRPC's metadata carries. The answer lists
   * the first ten, each quoted short, and how many more there are, and the connection carries on.
   */
  @Test
  void anUnknownResourceAmongManyLongNamesIsNotFoundListingAFewQuotedShort() throws Exception {
    List<ResourceConfig> resources = IntStream.range(0, 40)
        .mapToObj(i -> ResourceConfig.of(String.format(Locale.ROOT, "%02d", i) + "r".repeat(254), 100)).toList();
    QuotaServer many = QuotaServer.start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
        QuotaService.create(resources, false, new FakeClock()));
    ManagedChannel toMany = NettyChannelBuilder.forAddress("127.0.0.1", many.port()).usePlaintext().build();
    try {
      Status status = rawCall(toMany, rawRequest("a", "cache", 1));

      assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
      String listed = IntStream.range(0, 10)
          .mapToObj(i -> "'" + String.format(Locale.ROOT, "%02d", i) + "r".repeat(30) + "...' of 256 characters")
          .collect(Collectors.joining(", "));
      assertThat(status.getDescription())
          .isEqualTo("ballast quota: resource_id: 'cache' (expected: one of " + listed + " and 30 more)")
          .hasSizeLessThan(1024);
      GetCapacityResponse granted = ClientCalls.blockingUnaryCall(toMany, QuotaGrpc.getGetCapacityMethod(),
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request("a", resource(resources.get(39).name(), 30)));
      assertThat(granted.getResource(0).getLease().getCapacity()).as("a good call on the same connection").isEqualTo(30);
    } finally {
      toMany.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      many.close();
    }
  }

  /**
   * A client id of 64 KiB or 1 MiB used to come back whole in the status, past what gRPC's
   * metadata carries: the call got no answer and the next one on the connection hung. Now the
   * message quotes 32 characters and the length, and the connection carries on.
   */
  @Test
  void aHugeClientIdIsInvalidArgumentQuotingAShortPrefixAndTheConnectionCarriesOn() throws Exception {
    for (int length : new int[] {9_000, 64 * 1024, 1024 * 1024}) {
      Status status = rawCall(rawRequest("x".repeat(length), "db", 1));

      assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).isEqualTo("ballast quota: malformed GetCapacityRequest: client_id: '"
          + "x".repeat(32) + "...' of " + length + " characters, " + length
          + " UTF-8 bytes (expected: 1..256 characters, at most 512 bytes in UTF-8)");
      assertThat(call(request("a", resource("db", 1))).getResourceList())
          .as("a good call on the same connection after an id of %d characters", length).hasSize(1);
    }
  }

  @Test
  void aHugeResourceIdIsInvalidArgumentQuotingAShortPrefix() throws Exception {
    Status status = rawCall(rawRequest("a", "r".repeat(100_000), 1));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith("ballast quota: malformed GetCapacityRequest: resource_id: '"
        + "r".repeat(32) + "...' of 100000 characters, 100000 UTF-8 bytes (expected:");
  }
}
