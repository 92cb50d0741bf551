package dev.ballast.grpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** JSON text to the maps gRPC hands to policies, through gRPC's own parser. */
final class JsonTestParser {
  private JsonTestParser() {}

  @SuppressWarnings("unchecked")
  static Map<String, ?> parse(String json) {
    try {
      return (Map<String, ?>) io.grpc.internal.JsonParser.parse(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
