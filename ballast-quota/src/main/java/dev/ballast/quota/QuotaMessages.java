package dev.ballast.quota;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.ballast.internal.Ranges;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.Lease;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.quota.v1.ResourceResponse;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * The bounds on the values the quota service's messages ({@code ballast/quota/v1/quota.proto},
 * generated into {@code dev.ballast.quota.v1}) carry, checked where a message is received: the
 * service checks every request before it acts on it, and the client every response. A check throws
 * an {@link IllegalArgumentException} naming the field and its value (a long one by its first
 * characters) and what was expected; the service answers it INVALID_ARGUMENT with that reason.
 *
 * <p>The generated messages take any value the wire can carry; a message built in Java is checked
 * the same way before it is used, as {@link ResourceQuota} and {@link ResourceConfig} check their
 * settings with the checks here.
 */
public final class QuotaMessages {
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

  private static final String ID_EXPECTED =
      "(expected: 1.." + MAX_ID_CHARACTERS + " characters, at most " + MAX_ID_BYTES + " bytes in UTF-8)";

  private QuotaMessages() {}

  /**
   * Reads a {@code GetCapacityRequest} and checks it ({@link #check(GetCapacityRequest)}). Counts
   * the resources before it builds them, so that a request of millions of empty resources costs no
   * more memory than its bytes.
   *
   * @param bytes the serialized request
   * @return the request, its values in bounds
   * @throws InvalidProtocolBufferException if the bytes are not the message, or a value is out of
   *     bounds (the exception's message names it)
   */
  public static GetCapacityRequest parseGetCapacityRequest(byte[] bytes) throws InvalidProtocolBufferException {
    try {
      checkCount("resource", bytes, GetCapacityRequest.RESOURCE_FIELD_NUMBER, 1);
      return check(GetCapacityRequest.parseFrom(bytes));
    } catch (IllegalArgumentException e) {
      throw invalid(e);
    }
  }

  /**
   * Reads a {@code ReleaseCapacityRequest} and checks it ({@link #check(ReleaseCapacityRequest)}).
   *
   * @param bytes the serialized request
   * @return the request, its values in bounds
   * @throws InvalidProtocolBufferException if the bytes are not the message, or a value is out of
   *     bounds (the exception's message names it)
   */
  public static ReleaseCapacityRequest parseReleaseCapacityRequest(byte[] bytes) throws InvalidProtocolBufferException {
    try {
      checkCount("resource_id", bytes, ReleaseCapacityRequest.RESOURCE_ID_FIELD_NUMBER, 0);
      return check(ReleaseCapacityRequest.parseFrom(bytes));
    } catch (IllegalArgumentException e) {
      throw invalid(e);
    }
  }

  private static InvalidProtocolBufferException invalid(IllegalArgumentException e) {
    InvalidProtocolBufferException invalid = new InvalidProtocolBufferException(e.getMessage());
    invalid.initCause(e);
    return invalid;
  }

  /**
   * Throws if the message holds more than {@link #MAX_RESOURCES} of the repeated field; reads only
   * the tags and lengths of the top-level fields.
   */
  private static void checkCount(String name, byte[] bytes, int field, int min) throws InvalidProtocolBufferException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    int count = 0;
    try {
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag == ((field << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED) && ++count > MAX_RESOURCES) {
          throw new IllegalArgumentException(
              name + ": more than " + MAX_RESOURCES + " (expected: " + min + ".." + MAX_RESOURCES + ")");
        }
        if (!in.skipField(tag)) {
          throw new InvalidProtocolBufferException("unexpected end-group tag: " + tag);
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (IOException e) {
      throw new InvalidProtocolBufferException(e);
    }
  }

  /**
   * Checks a request: a client id, 1 to {@value #MAX_RESOURCES} resources, each at most once, each
   * with a valid id, demand, weight and held lease.
   *
   * @param request the request as received
   * @return {@code request}
   * @throws IllegalArgumentException naming the first value out of bounds
   */
  public static GetCapacityRequest check(GetCapacityRequest request) {
    checkId("client_id", request.getClientId());
    int count = request.getResourceCount();
    if (count == 0 || count > MAX_RESOURCES) {
      throw new IllegalArgumentException("resource: " + count + " of them (expected: 1.." + MAX_RESOURCES + ")");
    }
    Set<String> seen = new HashSet<>();
    for (ResourceRequest resource : request.getResourceList()) {
      check(resource);
      if (!seen.add(resource.getResourceId())) {
        throw new IllegalArgumentException(
            "resource_id: " + Ranges.quote(resource.getResourceId()) + " twice (expected: each resource at most once)");
      }
    }
    return request;
  }

  private static void check(ResourceRequest resource) {
    checkId("resource_id", resource.getResourceId());
    checkRate("wants", resource.getWants());
    if (resource.hasHas()) {
      check(resource.getHas());
    }
    checkWeight("weight", weight(resource));
  }

  /**
   * A resource request's weight: the wire's 0 (the field left out) means 1.
   *
   * @param resource a resource of a request
   * @return its weight, 1 if it has none
   */
  public static double weight(ResourceRequest resource) {
    return resource.getWeight() == 0 ? 1.0 : resource.getWeight();
  }

  private static void check(Lease lease) {
    checkRate("capacity", lease.getCapacity());
    if (lease.getExpiresInMillis() < 0) {
      throw new IllegalArgumentException("expires_in_millis: " + lease.getExpiresInMillis() + " (expected: 0 or more)");
    }
    if (lease.getRefreshIntervalMillis() < 0) {
      throw new IllegalArgumentException(
          "refresh_interval_millis: " + lease.getRefreshIntervalMillis() + " (expected: 0 or more)");
    }
  }

  /**
   * Checks a release: a client id and at most {@value #MAX_RESOURCES} resource ids (none means all
   * the client holds), each valid.
   *
   * @param request the request as received
   * @return {@code request}
   * @throws IllegalArgumentException naming the first value out of bounds
   */
  public static ReleaseCapacityRequest check(ReleaseCapacityRequest request) {
    checkId("client_id", request.getClientId());
    int count = request.getResourceIdCount();
    if (count > MAX_RESOURCES) {
      throw new IllegalArgumentException("resource_id: " + count + " of them (expected: 0.." + MAX_RESOURCES + ")");
    }
    request.getResourceIdList().forEach(id -> checkId("resource_id", id));
    return request;
  }

  /**
   * Checks a response: each resource with a valid id, lease (an absent one reads as a lease of 0
   * that has expired) and safe capacity.
   *
   * @param response the response as received
   * @return {@code response}
   * @throws IllegalArgumentException naming the first value out of bounds
   */
  public static GetCapacityResponse check(GetCapacityResponse response) {
    for (ResourceResponse resource : response.getResourceList()) {
      checkId("resource_id", resource.getResourceId());
      check(resource.getLease());
      checkRate("safe_capacity", resource.getSafeCapacity());
    }
    return response;
  }

  /**
   * Throws, naming {@code name} and the value, unless {@code id} is 1 to {@value #MAX_ID_CHARACTERS}
   * characters (code points) and at most {@value #MAX_ID_BYTES} bytes in UTF-8. The message quotes
   * a long value by its first characters only, with its length.
   *
   * @param name the field or setting, as the message names it
   * @param id the value
   * @throws IllegalArgumentException if the id is null, empty or too long
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

  /**
   * Throws, naming {@code name} and the value, unless {@code rate} is 0 to {@link #MAX_RATE}.
   *
   * @param name the field or setting, as the message names it
   * @param rate the value, per second
   * @throws IllegalArgumentException if the rate is NaN, negative or above {@link #MAX_RATE}
   */
  public static void checkRate(String name, double rate) {
    if (!(rate >= 0 && rate <= MAX_RATE)) {
      throw new IllegalArgumentException(name + ": " + Ranges.format(rate) + " (expected: 0..1e12)");
    }
  }

  /**
   * Throws, naming {@code name} and the value, unless {@code weight} is {@link #MIN_WEIGHT} to
   * {@link #MAX_WEIGHT}.
   *
   * @param name the field or setting, as the message names it
   * @param weight the value
   * @throws IllegalArgumentException if the weight is NaN or out of range
   */
  public static void checkWeight(String name, double weight) {
    if (!(weight >= MIN_WEIGHT && weight <= MAX_WEIGHT)) {
      throw new IllegalArgumentException(name + ": " + Ranges.format(weight) + " (expected: 1e-6..1e6)");
    }
  }
}
