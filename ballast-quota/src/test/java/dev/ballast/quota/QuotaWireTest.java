package dev.ballast.quota;

import static dev.ballast.quota.TestMessages.granted;
import static dev.ballast.quota.TestMessages.lease;
import static dev.ballast.quota.TestMessages.release;
import static dev.ballast.quota.TestMessages.request;
import static dev.ballast.quota.TestMessages.resource;
import static dev.ballast.quota.TestMessages.response;
import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ReleaseCapacityResponse;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.testing.RandomInputs;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The generated quota messages against the bytes Ballast's earlier, hand-written encoder sent: each
 * vector below is what that encoder wrote for the message beside it (captured before it was
 * replaced), so a client or server of either kind reads the other's. Then the bounds {@link
 * QuotaMessages} keeps on what is received.
 */
final class QuotaWireTest {

  /** Two resources, one holding a lease with weight 2, one with the default weight written out as 1. */
  private static final String REQUEST = "0a08636c69656e742d3712240a026462110000000000205e401a0c09000000000000544010a01f"
      + "21000000000000004012190a05636163686511000000000000084021000000000000f03f";
  /** A CJK and emoji client id, wants of -0.0 (written, as proto3 does) and 0 (left out), the weight bounds, an empty lease. */
  private static final String REQUEST_EDGES = "0a0be5aea2e688b72df09f9880122a0a01721100000000000000801a1309000000a2941a6d42"
      + "10ffffffffffffffff7f218dedb5a0f7c6b03e120e0a01731a00210000000080842e41";
  private static final String RESPONSE = "0a1f0a0264621210090000000000a0404010a09c011888271900000000000024400a0d0a05"
      + "6361636865120410011802";
  private static final String RELEASE = "0a01631202646212056361636865";
  private static final String RELEASE_ALL = "0a0163";
  /** A resource with no weight field, as a client in another language may send it. */
  private static final String NO_WEIGHT = "0a016312040a026462";

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  @Test
  void requestsAreTheBytesTheHandWrittenEncoderSent() throws Exception {
    GetCapacityRequest request = request("client-7",
        resource("db", 120.5, lease(80, 4_000, 0), 2), resource("cache", 3));
    assertThat(hex(request.toByteArray())).isEqualTo(REQUEST);
    assertThat(QuotaMessages.parseGetCapacityRequest(hex(REQUEST))).isEqualTo(request);

    GetCapacityRequest edges = request("\u5ba2\u6237-\uD83D\uDE00",
        resource("r", -0.0, lease(1e12, Long.MAX_VALUE, 0), 1e-6), resource("s", 0.0, lease(0, 0, 0), 1e6));
    assertThat(hex(edges.toByteArray())).isEqualTo(REQUEST_EDGES);
    GetCapacityRequest read = QuotaMessages.parseGetCapacityRequest(hex(REQUEST_EDGES));
    assertThat(read).isEqualTo(edges);
    assertThat(Double.doubleToRawLongBits(read.getResource(0).getWants())).as("-0.0 stays -0.0").isEqualTo(Long.MIN_VALUE);
    assertThat(read.getResource(1).hasHas()).as("an empty lease is still a lease").isTrue();
  }

  @Test
  void responsesAndReleasesAreTheBytesTheHandWrittenEncoderSent() throws Exception {
    GetCapacityResponse response = response(granted("db", lease(33.25, 20_000, 5_000), 10), granted("cache", lease(0, 1, 2), 0));
    assertThat(hex(response.toByteArray())).isEqualTo(RESPONSE);
    assertThat(QuotaMessages.check(GetCapacityResponse.parseFrom(hex(RESPONSE)))).isEqualTo(response);
    assertThat(response().toByteArray()).isEmpty();

    assertThat(hex(release("c", "db", "cache").toByteArray())).isEqualTo(RELEASE);
    assertThat(QuotaMessages.parseReleaseCapacityRequest(hex(RELEASE))).isEqualTo(release("c", "db", "cache"));
    assertThat(hex(release("c").toByteArray())).isEqualTo(RELEASE_ALL);
    assertThat(ReleaseCapacityResponse.getDefaultInstance().toByteArray()).isEmpty();
  }

  @Test
  void aResourceWithNoWeightHasWeightOne() throws Exception {
    ResourceRequest db = QuotaMessages.parseGetCapacityRequest(hex(NO_WEIGHT)).getResource(0);
    assertThat(db.getResourceId()).isEqualTo("db");
    assertThat(db.getWeight()).as("on the wire").isZero();
    assertThat(QuotaMessages.weight(db)).isEqualTo(1.0);
  }

  @Test
  void theServiceAndItsMethodsKeepTheirNamesAndAreIdempotent() {
    assertThat(QuotaGrpc.SERVICE_NAME).isEqualTo("ballast.quota.v1.Quota");
    for (MethodDescriptor<?, ?> method : List.of(QuotaGrpc.getGetCapacityMethod(), QuotaGrpc.getReleaseCapacityMethod())) {
      assertThat(method.isIdempotent()).as(method.getFullMethodName()).isTrue();
      assertThat(method.getType()).isEqualTo(MethodDescriptor.MethodType.UNARY);
    }
    assertThat(QuotaGrpc.getGetCapacityMethod().getFullMethodName()).isEqualTo("ballast.quota.v1.Quota/GetCapacity");
    assertThat(QuotaGrpc.getReleaseCapacityMethod().getFullMethodName()).isEqualTo("ballast.quota.v1.Quota/ReleaseCapacity");
  }

  @Test
  void fieldsFromANewerVersionAreSkipped() throws Exception {
    GetCapacityRequest request = request("c", resource("db", 1));
    byte[] withUnknown = request.toBuilder()
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(5).addLengthDelimited(ByteString.copyFromUtf8("x")).build())
            .build())
        .build().toByteArray();
    assertThat(QuotaMessages.parseGetCapacityRequest(withUnknown).getResourceList()).isEqualTo(request.getResourceList());
  }

  @Test
  void garbageAndBadValuesAreInvalidNamingTheValue() {
    assertThatThrownBy(() -> QuotaMessages.parseGetCapacityRequest(new byte[] {(byte) 0xff, (byte) 0xff, 0x01, 0x02}))
        .isInstanceOf(InvalidProtocolBufferException.class);
    assertThatThrownBy(() -> QuotaMessages.parseGetCapacityRequest(new byte[] {0x12, 0x7f, 0x0a}))
        .isInstanceOf(InvalidProtocolBufferException.class);
    byte[] nanWants = request("c", resource("db", Double.NaN)).toByteArray();
    assertThatThrownBy(() -> QuotaMessages.parseGetCapacityRequest(nanWants))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("wants: NaN (expected: 0..1e12)");
    assertThatThrownBy(() -> QuotaMessages.parseGetCapacityRequest(new byte[0]))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("client_id: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
    byte[] emptyIdRelease = release("c", "").toByteArray();
    assertThatThrownBy(() -> QuotaMessages.parseReleaseCapacityRequest(emptyIdRelease))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("resource_id: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
  }

  @Test
  void everyBoundTheMessagesHadIsCheckedWhereTheyAreReceived() {
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", -1)))).hasMessage("wants: -1 (expected: 0..1e12)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", 1, null, -1))))
        .hasMessage("weight: -1 (expected: 1e-6..1e6)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", 1, null, 2e6))))
        .hasMessage("weight: 2000000 (expected: 1e-6..1e6)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", 1), resource("db", 2))))
        .hasMessage("resource_id: 'db' twice (expected: each resource at most once)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c"))).hasMessage("resource: 0 of them (expected: 1..1000)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", 1, lease(1, -5, 0), 1))))
        .hasMessage("expires_in_millis: -5 (expected: 0 or more)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", 1, lease(1, 5, -1), 1))))
        .hasMessage("refresh_interval_millis: -1 (expected: 0 or more)");
    assertThatThrownBy(() -> QuotaMessages.check(request("c", resource("db", 1, lease(Double.POSITIVE_INFINITY, 5, 0), 1))))
        .hasMessage("capacity: Infinity (expected: 0..1e12)");
    assertThatThrownBy(() -> QuotaMessages.check(response(granted("db", lease(1, 1, 1), -3))))
        .hasMessage("safe_capacity: -3 (expected: 0..1e12)");
    assertThatThrownBy(() -> QuotaMessages.check(response(granted("", lease(1, 1, 1), 0))))
        .hasMessage("resource_id: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
    String[] many = new String[QuotaMessages.MAX_RESOURCES + 1];
    java.util.Arrays.setAll(many, i -> "r" + i);
    assertThatThrownBy(() -> QuotaMessages.check(release("c", many))).hasMessage("resource_id: 1001 of them (expected: 0..1000)");
  }

  /**
   * A request of a million empty resources (2 MB) is refused by counting its fields, before a
   * million messages are built from it.
   */
  @Test
  void tooManyResourcesAreRefusedBeforeTheyAreBuilt() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeString(GetCapacityRequest.CLIENT_ID_FIELD_NUMBER, "c");
    for (int i = 0; i < 1_000_000; i++) {
      out.writeBytes(GetCapacityRequest.RESOURCE_FIELD_NUMBER, ByteString.EMPTY);
    }
    out.flush();
    assertThatThrownBy(() -> QuotaMessages.parseGetCapacityRequest(bytes.toByteArray()))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("resource: more than 1000 (expected: 1..1000)");
    byte[] releases = new byte[3 * 1001];
    for (int i = 0; i < 1001; i++) {
      releases[3 * i] = 0x12;
      releases[3 * i + 1] = 0x01;
      releases[3 * i + 2] = 'r';
    }
    assertThatThrownBy(() -> QuotaMessages.parseReleaseCapacityRequest(releases))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("resource_id: more than 1000 (expected: 0..1000)");
  }

  /** Ids of 1..20 chars of any kind; rates with two decimals up to 1e12, and 0, -0 and 1. */
  private static GetCapacityRequest randomRequest(RandomInputs in) {
    List<ResourceRequest> resources = in.listOf(1, 5, QuotaWireTest::randomResource);
    Set<String> ids = new HashSet<>();
    return request(in.string(1, 20), resources.stream().filter(r -> ids.add(r.getResourceId())).toArray(ResourceRequest[]::new));
  }

  private static ResourceRequest randomResource(RandomInputs in) {
    var has = in.withProbability(0.4) ? null
        : lease(rate(in), in.longBetween(0, Long.MAX_VALUE), in.longBetween(0, 100_000));
    double weight = in.anyBoolean() ? 1.0 : in.decimalBetween(1e-6, 1e6, 9);
    return resource(in.string(1, 20), rate(in), has, weight);
  }

  private static double rate(RandomInputs in) {
    return in.anyBoolean() ? in.decimalBetween(0, 1e12, 2) : in.oneOf(0.0, -0.0, 1.0);
  }

  /** Every value in bounds is accepted where it is received, and comes back as it was sent. */
  @Test
  void everyRequestInBoundsIsReceivedAsItWasSent() {
    forAll(QuotaWireTest::randomRequest, request ->
        assertThat(QuotaMessages.parseGetCapacityRequest(request.toByteArray())).isEqualTo(request));
  }
}
