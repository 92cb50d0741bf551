package dev.ballast.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code node.metadata} of the xDS bootstrap that gRPC-Java reads, found where gRPC finds it:
 * a file named by the environment variable {@code GRPC_XDS_BOOTSTRAP}, else by the system property
 * {@code io.grpc.xds.bootstrap}, else the JSON itself in the environment variable {@code
 * GRPC_XDS_BOOTSTRAP_CONFIG}, else in the system property {@code io.grpc.xds.bootstrapConfig}.
 *
 * <p>A load-balancing policy is not handed the bootstrap, and the Cluster a control plane pushes is
 * the same for every client; the bootstrap is where a control plane or a mesh's injector puts what
 * differs per client. Reading it needs no xDS classes, so a process without grpc-xds reads it too
 * (and finds nothing unless it is set).
 */
final class XdsBootstrapMetadata {
  static final String PATH_ENV = "GRPC_XDS_BOOTSTRAP";
  static final String PATH_PROPERTY = "io.grpc.xds.bootstrap";
  static final String CONFIG_ENV = "GRPC_XDS_BOOTSTRAP_CONFIG";
  static final String CONFIG_PROPERTY = "io.grpc.xds.bootstrapConfig";

  private final Map<String, Value> metadata;
  /** Why no metadata could be read, or null. */
  private final String problem;

  private XdsBootstrapMetadata(Map<String, Value> metadata, String problem) {
    this.metadata = metadata;
    this.problem = problem;
  }

  /** The bootstrap's metadata from gRPC's four sources, looked up in gRPC's order. */
  static XdsBootstrapMetadata read(Function<String, String> systemProperties, Function<String, String> environment) {
    String path = environment.apply(PATH_ENV);
    String pathSource = "environment variable " + PATH_ENV;
    if (path == null) {
      path = systemProperties.apply(PATH_PROPERTY);
      pathSource = "system property " + PATH_PROPERTY;
    }
    if (path != null) {
      try {
        return parse(pathSource + " (" + path + ")", Files.readString(Path.of(path), StandardCharsets.UTF_8));
      } catch (IOException | RuntimeException e) {
        return new XdsBootstrapMetadata(Map.of(), pathSource + ": '" + path + "' cannot be read (" + e + ")");
      }
    }
    String inline = environment.apply(CONFIG_ENV);
    if (inline != null) {
      return parse("environment variable " + CONFIG_ENV, inline);
    }
    inline = systemProperties.apply(CONFIG_PROPERTY);
    if (inline != null) {
      return parse("system property " + CONFIG_PROPERTY, inline);
    }
    return new XdsBootstrapMetadata(Map.of(), null);
  }

  static XdsBootstrapMetadata parse(String source, String json) {
    Struct.Builder bootstrap = Struct.newBuilder();
    try {
      JsonFormat.parser().merge(json, bootstrap);
    } catch (InvalidProtocolBufferException e) {
      return new XdsBootstrapMetadata(Map.of(), source + ": not a JSON object (" + e.getMessage() + ")");
    }
    Value node = bootstrap.getFieldsMap().get("node");
    if (node == null || !node.hasStructValue()) {
      return new XdsBootstrapMetadata(Map.of(), null);
    }
    Value metadata = node.getStructValue().getFieldsMap().get("metadata");
    if (metadata == null || !metadata.hasStructValue()) {
      return new XdsBootstrapMetadata(Map.of(), null);
    }
    return new XdsBootstrapMetadata(metadata.getStructValue().getFieldsMap(), null);
  }

  /**
   * The value under {@code key} as text: a string as it is, a number as written (a whole number
   * without a fraction), anything else as JSON; null when absent or unreadable.
   */
  String value(String key) {
    Value value = metadata.get(key);
    if (value == null) {
      return null;
    }
    switch (value.getKindCase()) {
      case STRING_VALUE:
        return value.getStringValue();
      case NUMBER_VALUE:
        double number = value.getNumberValue();
        return number == Math.rint(number) && Math.abs(number) < 9.0e15
            ? Long.toString((long) number)
            : Double.toString(number);
      default:
        try {
          return JsonFormat.printer().omittingInsignificantWhitespace().print(value);
        } catch (InvalidProtocolBufferException e) {
          return value.toString();
        }
    }
  }

  /** Why the bootstrap could not be read, for the warning of a client left without an identity; null if it could. */
  String problem() {
    return problem;
  }
}
