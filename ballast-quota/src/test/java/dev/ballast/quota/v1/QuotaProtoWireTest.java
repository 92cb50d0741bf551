package dev.ballast.quota.v1;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import dev.ballast.quota.v1.QuotaProto.GetCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaProto.Lease;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.ResourceRequest;
import dev.ballast.quota.v1.QuotaProto.ResourceResponse;
import dev.ballast.testing.RandomInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The hand-written messages against quota.proto itself: the descriptor is built at run time from
 * the .proto file's text (a reader for the small subset it uses), and messages go both ways
 * through protobuf-java's {@link DynamicMessage}.
 */
final class QuotaProtoWireTest {

  private static Descriptor type(String name) {
    return FILE.findMessageTypeByName(name);
  }

  @Test
  void theProtoFileDeclaresTheServiceAndMethodsTheJavaSideCalls() {
    var service = FILE.findServiceByName("Quota");
    assertThat(service.getFullName()).isEqualTo(QuotaGrpc.SERVICE_NAME);
    assertThat(QuotaGrpc.GET_CAPACITY.getFullMethodName())
        .isEqualTo(service.getFullName() + "/" + service.findMethodByName("GetCapacity").getName());
    assertThat(service.findMethodByName("GetCapacity").getInputType()).isEqualTo(type("GetCapacityRequest"));
    assertThat(QuotaGrpc.RELEASE_CAPACITY.getFullMethodName())
        .isEqualTo(service.getFullName() + "/" + service.findMethodByName("ReleaseCapacity").getName());
  }

  @Test
  void aRequestEncodesAsProtobufWouldAndDecodesWhatProtobufWrites() throws Exception {
    GetCapacityRequest request = new GetCapacityRequest("client-7", List.of(
        new ResourceRequest("db", 120.5, new Lease(80, 4_000, 0), 2),
        new ResourceRequest("cache", 3)));
    DynamicMessage dynamic = DynamicMessage.parseFrom(type("GetCapacityRequest"), request.toByteArray());
    assertThat(dynamic.toByteArray()).isEqualTo(request.toByteArray());
    assertThat(field(dynamic, "client_id")).isEqualTo("client-7");
    List<?> resources = (List<?>) field(dynamic, "resource");
    DynamicMessage db = (DynamicMessage) resources.get(0);
    assertThat(field(db, "resource_id")).isEqualTo("db");
    assertThat(field(db, "wants")).isEqualTo(120.5);
    assertThat(field(db, "weight")).isEqualTo(2.0);
    DynamicMessage has = (DynamicMessage) field(db, "has");
    assertThat(field(has, "capacity")).isEqualTo(80.0);
    assertThat(field(has, "expires_in_millis")).isEqualTo(4_000L);
    assertThat(((DynamicMessage) resources.get(1)).hasField(type("ResourceRequest").findFieldByName("has"))).isFalse();

    DynamicMessage written = DynamicMessage.newBuilder(type("GetCapacityRequest"))
        .setField(type("GetCapacityRequest").findFieldByName("client_id"), "client-7")
        .addRepeatedField(type("GetCapacityRequest").findFieldByName("resource"), db)
        .addRepeatedField(type("GetCapacityRequest").findFieldByName("resource"), DynamicMessage.newBuilder(type("ResourceRequest"))
            .setField(type("ResourceRequest").findFieldByName("resource_id"), "cache")
            .setField(type("ResourceRequest").findFieldByName("wants"), 3.0)
            .build())
        .build();
    assertThat(GetCapacityRequest.parseFrom(written.toByteArray())).isEqualTo(request);
  }

  @Test
  void aResponseGoesBothWays() throws Exception {
    GetCapacityResponse response = new GetCapacityResponse(List.of(
        new ResourceResponse("db", new Lease(33.25, 20_000, 5_000), 10), new ResourceResponse("cache", new Lease(0, 1, 2), 0)));
    DynamicMessage dynamic = DynamicMessage.parseFrom(type("GetCapacityResponse"), response.toByteArray());
    assertThat(dynamic.toByteArray()).isEqualTo(response.toByteArray());
    DynamicMessage db = (DynamicMessage) ((List<?>) field(dynamic, "resource")).get(0);
    assertThat(field(db, "safe_capacity")).isEqualTo(10.0);
    assertThat(field((DynamicMessage) field(db, "lease"), "refresh_interval_millis")).isEqualTo(5_000L);
    assertThat(GetCapacityResponse.parseFrom(dynamic.toByteArray())).isEqualTo(response);
  }

  @Test
  void aReleaseGoesBothWays() throws Exception {
    ReleaseCapacityRequest release = new ReleaseCapacityRequest("c", List.of("db", "cache"));
    DynamicMessage dynamic = DynamicMessage.parseFrom(type("ReleaseCapacityRequest"), release.toByteArray());
    assertThat(dynamic.toByteArray()).isEqualTo(release.toByteArray());
    assertThat(ReleaseCapacityRequest.parseFrom(dynamic.toByteArray())).isEqualTo(release);
  }

  @Test
  void fieldsFromANewerVersionAreSkipped() throws Exception {
    GetCapacityRequest request = new GetCapacityRequest("c", List.of(new ResourceRequest("db", 1)));
    DynamicMessage withUnknown = DynamicMessage.parseFrom(type("GetCapacityRequest"), request.toByteArray()).toBuilder()
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(5).addLengthDelimited(com.google.protobuf.ByteString.copyFromUtf8("x")).build())
            .build())
        .build();
    assertThat(GetCapacityRequest.parseFrom(withUnknown.toByteArray())).isEqualTo(request);
  }

  @Test
  void garbageAndBadValuesAreInvalidNamingTheValue() {
    assertThatThrownBy(() -> GetCapacityRequest.parseFrom(new byte[] {(byte) 0xff, (byte) 0xff, 0x01, 0x02}))
        .isInstanceOf(InvalidProtocolBufferException.class);
    assertThatThrownBy(() -> GetCapacityRequest.parseFrom(new byte[] {0x12, 0x7f, 0x0a}))
        .isInstanceOf(InvalidProtocolBufferException.class);
    byte[] nanWants = DynamicMessage.newBuilder(type("GetCapacityRequest"))
        .setField(type("GetCapacityRequest").findFieldByName("client_id"), "c")
        .addRepeatedField(type("GetCapacityRequest").findFieldByName("resource"), DynamicMessage.newBuilder(type("ResourceRequest"))
            .setField(type("ResourceRequest").findFieldByName("resource_id"), "db")
            .setField(type("ResourceRequest").findFieldByName("wants"), Double.NaN)
            .build())
        .build().toByteArray();
    assertThatThrownBy(() -> GetCapacityRequest.parseFrom(nanWants))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("wants: NaN (expected: 0..1e12)");
    assertThatThrownBy(() -> GetCapacityRequest.parseFrom(new byte[0]))
        .hasMessage("client_id: '' (expected: 1..256 characters, at most 512 bytes in UTF-8)");
  }

  @Test
  void recordsRejectBadValuesNamingThem() {
    assertThatThrownBy(() -> new ResourceRequest("db", -1)).hasMessage("wants: -1 (expected: 0..1e12)");
    assertThatThrownBy(() -> new ResourceRequest("db", 1, null, 0)).hasMessage("weight: 0 (expected: 1e-6..1e6)");
    assertThatThrownBy(() -> new GetCapacityRequest("c", List.of(new ResourceRequest("db", 1), new ResourceRequest("db", 2))))
        .hasMessage("resource_id: 'db' twice (expected: each resource at most once)");
    assertThatThrownBy(() -> new GetCapacityRequest("c", List.of())).hasMessage("resource: 0 of them (expected: 1..1000)");
    assertThatThrownBy(() -> new Lease(1, -5, 0)).hasMessage("expires_in_millis: -5 (expected: 0 or more)");
  }

  /** Ids of 1..20 chars of any kind; rates with two decimals up to 1e12, and 0, -0 and 1. */
  private static GetCapacityRequest request(RandomInputs in) {
    List<ResourceRequest> resources = in.listOf(1, 5, QuotaProtoWireTest::resource);
    Set<String> ids = new HashSet<>();
    return new GetCapacityRequest(in.string(1, 20), resources.stream().filter(r -> ids.add(r.resourceId())).toList());
  }

  private static ResourceRequest resource(RandomInputs in) {
    Lease has = in.withProbability(0.4) ? null
        : new Lease(rate(in), in.longBetween(0, Long.MAX_VALUE), in.longBetween(0, 100_000));
    double weight = in.anyBoolean() ? 1.0 : in.decimalBetween(1e-6, 1e6, 9);
    return new ResourceRequest(in.string(1, 20), rate(in), has, weight);
  }

  private static double rate(RandomInputs in) {
    return in.anyBoolean() ? in.decimalBetween(0, 1e12, 2) : in.oneOf(0.0, -0.0, 1.0);
  }

  @Test
  void everyRequestRoundTripsThroughProtobuf() {
    forAll(QuotaProtoWireTest::request, request -> {
      DynamicMessage dynamic = DynamicMessage.parseFrom(type("GetCapacityRequest"), request.toByteArray());
      assertThat(dynamic.toByteArray()).isEqualTo(request.toByteArray());
      assertThat(GetCapacityRequest.parseFrom(dynamic.toByteArray())).isEqualTo(request);
    });
  }

  private static Object field(DynamicMessage message, String name) {
    return message.getField(message.getDescriptorForType().findFieldByName(name));
  }

  // ---- a reader for the subset of the .proto language quota.proto uses ----

  private static final Pattern MESSAGE = Pattern.compile("message\\s+(\\w+)\\s*\\{([^}]*)}");
  private static final Pattern FIELD = Pattern.compile("(repeated\\s+)?(\\w+)\\s+(\\w+)\\s*=\\s*(\\d+)\\s*;");
  private static final Pattern RPC = Pattern.compile("rpc\\s+(\\w+)\\s*\\(\\s*(\\w+)\\s*\\)\\s*returns\\s*\\(\\s*(\\w+)\\s*\\)");
  private static final Pattern SERVICE = Pattern.compile("service\\s+(\\w+)\\s*\\{");
  private static final Pattern PACKAGE = Pattern.compile("package\\s+([\\w.]+)\\s*;");
  // After the patterns, which it reads with.
  static final FileDescriptor FILE = readProto(Path.of("src/main/proto/ballast/quota/v1/quota.proto"));

  static FileDescriptor readProto(Path path) {
    try {
      String text = Files.readString(path).replaceAll("//[^\n]*", "");
      Matcher pkg = PACKAGE.matcher(text);
      assertThat(pkg.find()).as("package in %s", path).isTrue();
      String packageName = pkg.group(1);
      assertThat(text).contains("syntax = \"proto3\";");
      FileDescriptorProto.Builder file = FileDescriptorProto.newBuilder()
          .setName("ballast/quota/v1/quota.proto").setPackage(packageName).setSyntax("proto3");
      Matcher message = MESSAGE.matcher(text);
      while (message.find()) {
        DescriptorProto.Builder type = DescriptorProto.newBuilder().setName(message.group(1));
        Matcher field = FIELD.matcher(message.group(2));
        while (field.find()) {
          FieldDescriptorProto.Builder f = FieldDescriptorProto.newBuilder()
              .setName(field.group(3))
              .setNumber(Integer.parseInt(field.group(4)))
              .setLabel(field.group(1) != null ? FieldDescriptorProto.Label.LABEL_REPEATED : FieldDescriptorProto.Label.LABEL_OPTIONAL);
          switch (field.group(2)) {
            case "double" -> f.setType(FieldDescriptorProto.Type.TYPE_DOUBLE);
            case "int64" -> f.setType(FieldDescriptorProto.Type.TYPE_INT64);
            case "string" -> f.setType(FieldDescriptorProto.Type.TYPE_STRING);
            default -> f.setType(FieldDescriptorProto.Type.TYPE_MESSAGE).setTypeName("." + packageName + "." + field.group(2));
          }
          type.addField(f);
        }
        file.addMessageType(type);
      }
      Matcher service = SERVICE.matcher(text);
      assertThat(service.find()).isTrue();
      ServiceDescriptorProto.Builder quota = ServiceDescriptorProto.newBuilder().setName(service.group(1));
      Matcher rpc = RPC.matcher(text);
      while (rpc.find()) {
        quota.addMethod(MethodDescriptorProto.newBuilder().setName(rpc.group(1))
            .setInputType("." + packageName + "." + rpc.group(2)).setOutputType("." + packageName + "." + rpc.group(3)));
      }
      file.addService(quota);
      return FileDescriptor.buildFrom(file.build(), new FileDescriptor[0]);
    } catch (Exception e) {
      throw new AssertionError("reading " + path, e);
    }
  }
}
