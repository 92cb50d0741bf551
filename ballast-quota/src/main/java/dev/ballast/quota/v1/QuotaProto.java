package dev.ballast.quota.v1;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.ballast.internal.Ranges;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The messages of {@code ballast/quota/v1/quota.proto}, written by hand as records (the build runs
 * no code generator) and encoded with protobuf-java's coded streams, byte for byte as protoc's
 * classes would. Every record validates in its constructor, so a decoded message is a valid one:
 * {@link #parse} turns bad bytes and bad values alike into an {@link InvalidProtocolBufferException}
 * naming the value.
 */
public final class QuotaProto {
  /**
   * Client and resource ids: 1 to this many characters, counted as Unicode code points (an emoji is
   * one), and at most {@link #MAX_ID_BYTES} bytes in UTF-8, as they travel.
   */
  public static final int MAX_ID_CHARACTERS = 256;
  /** Client and resource ids: at most this many bytes in UTF-8 (256 ASCII characters, 170 of CJK). */
  public static final int MAX_ID_BYTES = 512;
  /** Resources in one request: at most this many. */
  public static final int MAX_RESOURCES = 1000;
  /** Rates (wants, capacity, safe capacity): 0 to this many per second. */
  public static final double MAX_RATE = 1e12;
  /** Weights: at most this. */
  public static final double MAX_WEIGHT = 1e6;
  /**
   * Weights: at least this. Weights are relative, so the range {@code MIN_WEIGHT..MAX_WEIGHT}, a
   * ratio of 1e12, loses nothing a priority needs; what it buys is arithmetic that stays exact: a
   * demand over a weight is at most {@code MAX_RATE / MIN_WEIGHT = 1e18}, far from overflowing to
   * infinity (which a weight of 1e-310 did, starving every other client), and a sum of up to
   * 10 million weights keeps its 15 significant digits.
   */
  public static final double MIN_WEIGHT = 1e-6;

  private QuotaProto() {}

  public record GetCapacityRequest(String clientId, List<ResourceRequest> resources) {
    public GetCapacityRequest {
      checkId("client_id", clientId);
      resources = List.copyOf(resources);
      if (resources.isEmpty() || resources.size() > MAX_RESOURCES) {
        throw new IllegalArgumentException(
            "resource: " + resources.size() + " of them (expected: 1.." + MAX_RESOURCES + ")");
      }
      Set<String> seen = new HashSet<>();
      for (ResourceRequest resource : resources) {
        if (!seen.add(resource.resourceId())) {
          throw new IllegalArgumentException(
              "resource_id: " + Ranges.quote(resource.resourceId()) + " twice (expected: each resource at most once)");
        }
      }
    }

    public byte[] toByteArray() {
      return encode(this);
    }

    public static GetCapacityRequest parseFrom(byte[] bytes) throws InvalidProtocolBufferException {
      return parse(bytes, QuotaProto::readGetCapacityRequest);
    }
  }

  /**
   * @param has the lease the client holds now, or null if it holds none
   * @param weight the client's priority (the wire's 0 means 1)
   */
  public record ResourceRequest(String resourceId, double wants, Lease has, double weight) {
    public ResourceRequest {
      checkId("resource_id", resourceId);
      checkRate("wants", wants);
      checkWeight("weight", weight);
    }

    public ResourceRequest(String resourceId, double wants) {
      this(resourceId, wants, null, 1.0);
    }
  }

  public record Lease(double capacity, long expiresInMillis, long refreshIntervalMillis) {
    public Lease {
      checkRate("capacity", capacity);
      if (expiresInMillis < 0) {
        throw new IllegalArgumentException("expires_in_millis: " + expiresInMillis + " (expected: 0 or more)");
      }
      if (refreshIntervalMillis < 0) {
        throw new IllegalArgumentException(
            "refresh_interval_millis: " + refreshIntervalMillis + " (expected: 0 or more)");
      }
    }
  }

  public record GetCapacityResponse(List<ResourceResponse> resources) {
    public GetCapacityResponse {
      resources = List.copyOf(resources);
    }

    public byte[] toByteArray() {
      return encode(this);
    }

    public static GetCapacityResponse parseFrom(byte[] bytes) throws InvalidProtocolBufferException {
      return parse(bytes, QuotaProto::readGetCapacityResponse);
    }
  }

  public record ResourceResponse(String resourceId, Lease lease, double safeCapacity) {
    public ResourceResponse {
      checkId("resource_id", resourceId);
      Objects.requireNonNull(lease, "lease");
      checkRate("safe_capacity", safeCapacity);
    }
  }

  public record ReleaseCapacityRequest(String clientId, List<String> resourceIds) {
    public ReleaseCapacityRequest {
      checkId("client_id", clientId);
      resourceIds = List.copyOf(resourceIds);
      if (resourceIds.size() > MAX_RESOURCES) {
        throw new IllegalArgumentException(
            "resource_id: " + resourceIds.size() + " of them (expected: 0.." + MAX_RESOURCES + ")");
      }
      resourceIds.forEach(id -> checkId("resource_id", id));
    }

    public byte[] toByteArray() {
      return encode(this);
    }

    public static ReleaseCapacityRequest parseFrom(byte[] bytes) throws InvalidProtocolBufferException {
      return parse(bytes, QuotaProto::readReleaseCapacityRequest);
    }
  }

  public record ReleaseCapacityResponse() {
    public byte[] toByteArray() {
      return new byte[0];
    }

    public static ReleaseCapacityResponse parseFrom(byte[] bytes) throws InvalidProtocolBufferException {
      return parse(bytes, in -> {
        skipAll(in);
        return new ReleaseCapacityResponse();
      });
    }
  }

  /**
   * Throws, naming {@code name} and the value, unless {@code id} is 1 to {@value #MAX_ID_CHARACTERS}
   * characters (code points) and at most {@value #MAX_ID_BYTES} bytes in UTF-8. The message quotes
   * a long value by its first characters only, with its length.
   */
  public static void checkId(String name, String id) {
    if (id == null) {
      throw new IllegalArgumentException(name + ": null " + ID_EXPECTED);
    }
    int characters = id.codePointCount(0, id.length());
    int bytes = utf8Length(id);
    if (characters == 0 || characters > MAX_ID_CHARACTERS || bytes > MAX_ID_BYTES) {
      String quoted = Ranges.quote(id);
      String size = bytes <= MAX_ID_BYTES ? ""
          : (quoted.endsWith(" characters") ? ", " : " of " + characters + " characters, ") + bytes + " UTF-8 bytes";
      throw new IllegalArgumentException(name + ": " + quoted + size + " " + ID_EXPECTED);
    }
  }

  private static final String ID_EXPECTED =
      "(expected: 1.." + MAX_ID_CHARACTERS + " characters, at most " + MAX_ID_BYTES + " bytes in UTF-8)";

  /** The length of {@code s} in UTF-8 (a lone surrogate, which no valid message holds, counted as 3 bytes). */
  static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /** Throws, naming {@code name} and the value, unless {@code rate} is 0 to {@link #MAX_RATE}. */
  public static void checkRate(String name, double rate) {
    if (!(rate >= 0 && rate <= MAX_RATE)) {
      throw new IllegalArgumentException(name + ": " + Ranges.format(rate) + " (expected: 0..1e12)");
    }
  }

  /** Throws, naming {@code name} and the value, unless {@code weight} is {@link #MIN_WEIGHT} to {@link #MAX_WEIGHT}. */
  public static void checkWeight(String name, double weight) {
    if (!(weight >= MIN_WEIGHT && weight <= MAX_WEIGHT)) {
      throw new IllegalArgumentException(name + ": " + Ranges.format(weight) + " (expected: 1e-6..1e6)");
    }
  }

  // ---- encoding: proto3 rules, fields in number order, zero values left out ----

  private static byte[] encode(Object message) {
    byte[] bytes = new byte[size(message)];
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      write(message, out);
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("encoding into an array of the computed size", e);
    }
    return bytes;
  }

  private static int size(Object message) {
    int size = 0;
    if (message instanceof GetCapacityRequest m) {
      size += stringSize(1, m.clientId());
      for (ResourceRequest r : m.resources()) {
        size += nestedSize(2, size(r));
      }
    } else if (message instanceof ResourceRequest m) {
      size += stringSize(1, m.resourceId()) + doubleSize(2, m.wants());
      if (m.has() != null) {
        size += nestedSize(3, size(m.has()));
      }
      size += doubleSize(4, m.weight());
    } else if (message instanceof Lease m) {
      size += doubleSize(1, m.capacity()) + longSize(2, m.expiresInMillis()) + longSize(3, m.refreshIntervalMillis());
    } else if (message instanceof GetCapacityResponse m) {
      for (ResourceResponse r : m.resources()) {
        size += nestedSize(1, size(r));
      }
    } else if (message instanceof ResourceResponse m) {
      size += stringSize(1, m.resourceId()) + nestedSize(2, size(m.lease())) + doubleSize(3, m.safeCapacity());
    } else if (message instanceof ReleaseCapacityRequest m) {
      size += stringSize(1, m.clientId());
      for (String id : m.resourceIds()) {
        size += CodedOutputStream.computeStringSize(2, id);
      }
    } else {
      throw new IllegalArgumentException("not a quota message: " + message.getClass());
    }
    return size;
  }

  private static void write(Object message, CodedOutputStream out) throws IOException {
    if (message instanceof GetCapacityRequest m) {
      writeString(out, 1, m.clientId());
      for (ResourceRequest r : m.resources()) {
        writeNested(out, 2, r);
      }
    } else if (message instanceof ResourceRequest m) {
      writeString(out, 1, m.resourceId());
      writeDouble(out, 2, m.wants());
      if (m.has() != null) {
        writeNested(out, 3, m.has());
      }
      writeDouble(out, 4, m.weight());
    } else if (message instanceof Lease m) {
      writeDouble(out, 1, m.capacity());
      writeLong(out, 2, m.expiresInMillis());
      writeLong(out, 3, m.refreshIntervalMillis());
    } else if (message instanceof GetCapacityResponse m) {
      for (ResourceResponse r : m.resources()) {
        writeNested(out, 1, r);
      }
    } else if (message instanceof ResourceResponse m) {
      writeString(out, 1, m.resourceId());
      writeNested(out, 2, m.lease());
      writeDouble(out, 3, m.safeCapacity());
    } else if (message instanceof ReleaseCapacityRequest m) {
      writeString(out, 1, m.clientId());
      for (String id : m.resourceIds()) {
        out.writeString(2, id);
      }
    }
  }

  private static int stringSize(int field, String value) {
    return value.isEmpty() ? 0 : CodedOutputStream.computeStringSize(field, value);
  }

  /** proto3 leaves out a double whose bits are zero (so -0.0 is written). */
  private static int doubleSize(int field, double value) {
    return Double.doubleToRawLongBits(value) == 0 ? 0 : CodedOutputStream.computeDoubleSize(field, value);
  }

  private static int longSize(int field, long value) {
    return value == 0 ? 0 : CodedOutputStream.computeInt64Size(field, value);
  }

  private static int nestedSize(int field, int size) {
    return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
  }

  private static void writeString(CodedOutputStream out, int field, String value) throws IOException {
    if (!value.isEmpty()) {
      out.writeString(field, value);
    }
  }

  private static void writeDouble(CodedOutputStream out, int field, double value) throws IOException {
    if (Double.doubleToRawLongBits(value) != 0) {
      out.writeDouble(field, value);
    }
  }

  private static void writeLong(CodedOutputStream out, int field, long value) throws IOException {
    if (value != 0) {
      out.writeInt64(field, value);
    }
  }

  private static void writeNested(CodedOutputStream out, int field, Object message) throws IOException {
    out.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    out.writeUInt32NoTag(size(message));
    write(message, out);
  }

  // ---- decoding: unknown fields skipped, a field of the wrong wire type is an error ----

  private interface Reader<T> {
    T read(CodedInputStream in) throws IOException;
  }

  private static <T> T parse(byte[] bytes, Reader<T> reader) throws InvalidProtocolBufferException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    try {
      T message = reader.read(in);
      in.checkLastTagWas(0);
      return message;
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (IOException | IllegalArgumentException | NullPointerException e) {
      InvalidProtocolBufferException invalid = new InvalidProtocolBufferException(e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }

  private static GetCapacityRequest readGetCapacityRequest(CodedInputStream in) throws IOException {
    String clientId = "";
    List<ResourceRequest> resources = new ArrayList<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case (1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> clientId = in.readStringRequireUtf8();
        case (2 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
          if (resources.size() == MAX_RESOURCES) {
            throw new IllegalArgumentException("resource: more than " + MAX_RESOURCES + " (expected: 1.." + MAX_RESOURCES + ")");
          }
          resources.add(readNested(in, QuotaProto::readResourceRequest));
        }
        default -> skip(in, tag);
      }
    }
    return new GetCapacityRequest(clientId, resources);
  }

  private static ResourceRequest readResourceRequest(CodedInputStream in) throws IOException {
    String resourceId = "";
    double wants = 0;
    Lease has = null;
    double weight = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case (1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> resourceId = in.readStringRequireUtf8();
        case (2 << 3) | WireFormat.WIRETYPE_FIXED64 -> wants = in.readDouble();
        case (3 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> has = readNested(in, QuotaProto::readLease);
        case (4 << 3) | WireFormat.WIRETYPE_FIXED64 -> weight = in.readDouble();
        default -> skip(in, tag);
      }
    }
    return new ResourceRequest(resourceId, wants, has, weight == 0 ? 1.0 : weight);
  }

  private static Lease readLease(CodedInputStream in) throws IOException {
    double capacity = 0;
    long expiresIn = 0;
    long refresh = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case (1 << 3) | WireFormat.WIRETYPE_FIXED64 -> capacity = in.readDouble();
        case (2 << 3) | WireFormat.WIRETYPE_VARINT -> expiresIn = in.readInt64();
        case (3 << 3) | WireFormat.WIRETYPE_VARINT -> refresh = in.readInt64();
        default -> skip(in, tag);
      }
    }
    return new Lease(capacity, expiresIn, refresh);
  }

  private static GetCapacityResponse readGetCapacityResponse(CodedInputStream in) throws IOException {
    List<ResourceResponse> resources = new ArrayList<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag == ((1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
        resources.add(readNested(in, QuotaProto::readResourceResponse));
      } else {
        skip(in, tag);
      }
    }
    return new GetCapacityResponse(resources);
  }

  private static ResourceResponse readResourceResponse(CodedInputStream in) throws IOException {
    String resourceId = "";
    Lease lease = new Lease(0, 0, 0);
    double safe = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case (1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> resourceId = in.readStringRequireUtf8();
        case (2 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> lease = readNested(in, QuotaProto::readLease);
        case (3 << 3) | WireFormat.WIRETYPE_FIXED64 -> safe = in.readDouble();
        default -> skip(in, tag);
      }
    }
    return new ResourceResponse(resourceId, lease, safe);
  }

  private static ReleaseCapacityRequest readReleaseCapacityRequest(CodedInputStream in) throws IOException {
    String clientId = "";
    List<String> ids = new ArrayList<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag) {
        case (1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> clientId = in.readStringRequireUtf8();
        case (2 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
          if (ids.size() == MAX_RESOURCES) {
            throw new IllegalArgumentException("resource_id: more than " + MAX_RESOURCES + " (expected: 0.." + MAX_RESOURCES + ")");
          }
          ids.add(in.readStringRequireUtf8());
        }
        default -> skip(in, tag);
      }
    }
    return new ReleaseCapacityRequest(clientId, ids);
  }

  private static <T> T readNested(CodedInputStream in, Reader<T> reader) throws IOException {
    int length = in.readRawVarint32();
    if (length < 0) {
      throw new InvalidProtocolBufferException("negative length of an embedded message: " + length);
    }
    int oldLimit = in.pushLimit(length);
    T message = reader.read(in);
    in.checkLastTagWas(0);
    if (in.getBytesUntilLimit() != 0) {
      throw new InvalidProtocolBufferException("embedded message ended early");
    }
    in.popLimit(oldLimit);
    return message;
  }

  /** Skips a field it does not know; as in protoc's classes, a known number with another wire type counts as unknown. */
  private static void skip(CodedInputStream in, int tag) throws IOException {
    if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_END_GROUP || !in.skipField(tag)) {
      throw new InvalidProtocolBufferException("unexpected end-group tag: " + tag);
    }
  }

  private static void skipAll(CodedInputStream in) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      skip(in, tag);
    }
  }
}
