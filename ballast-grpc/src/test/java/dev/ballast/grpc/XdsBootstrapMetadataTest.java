package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class XdsBootstrapMetadataTest {
  private static final String BOOTSTRAP =
      "{\"xds_servers\": [], \"node\": {\"id\": \"c\", \"metadata\": {\"BALLAST_CLIENT_INDEX\": \"3\","
          + " \"BALLAST_CLIENT_COUNT\": 10, \"zone\": {\"name\": \"a\"}}}}";

  @Test
  void readsTheFileNamedByTheEnvironmentBeforeTheSystemProperty(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("bootstrap.json"), BOOTSTRAP);
    Path other =
        Files.writeString(dir.resolve("other.json"), "{\"node\": {\"metadata\": {\"BALLAST_CLIENT_INDEX\": 9}}}");

    XdsBootstrapMetadata fromEnvironment =
        XdsBootstrapMetadata.read(
            Map.of("io.grpc.xds.bootstrap", other.toString())::get, Map.of("GRPC_XDS_BOOTSTRAP", file.toString())::get);
    XdsBootstrapMetadata fromProperty =
        XdsBootstrapMetadata.read(Map.of("io.grpc.xds.bootstrap", other.toString())::get, Map.<String, String>of()::get);

    assertThat(fromEnvironment.value("BALLAST_CLIENT_INDEX")).isEqualTo("3");
    assertThat(fromEnvironment.value("BALLAST_CLIENT_COUNT")).isEqualTo("10");
    assertThat(fromEnvironment.value("zone")).isEqualTo("{\"name\":\"a\"}");
    assertThat(fromEnvironment.value("absent")).isNull();
    assertThat(fromProperty.value("BALLAST_CLIENT_INDEX")).isEqualTo("9");
  }

  @Test
  void readsTheInlineConfigWhenNoFileIsNamed() {
    XdsBootstrapMetadata inline =
        XdsBootstrapMetadata.read(
            Map.of("io.grpc.xds.bootstrapConfig", "{}")::get, Map.of("GRPC_XDS_BOOTSTRAP_CONFIG", BOOTSTRAP)::get);

    assertThat(inline.value("BALLAST_CLIENT_INDEX")).isEqualTo("3");
    assertThat(inline.problem()).isNull();
  }

  @Test
  void withoutABootstrapThereIsNoMetadataAndNoProblem() {
    XdsBootstrapMetadata none = XdsBootstrapMetadata.read(k -> null, k -> null);

    assertThat(none.value("BALLAST_CLIENT_INDEX")).isNull();
    assertThat(none.problem()).isNull();
  }

  @Test
  void anUnreadableBootstrapIsAProblemThatNamesItsSource(@TempDir Path dir) {
    Path missing = dir.resolve("missing.json");

    XdsBootstrapMetadata unreadable =
        XdsBootstrapMetadata.read(k -> null, Map.of("GRPC_XDS_BOOTSTRAP", missing.toString())::get);
    XdsBootstrapMetadata notJson =
        XdsBootstrapMetadata.read(Map.of("io.grpc.xds.bootstrapConfig", "[1]")::get, k -> null);

    assertThat(unreadable.value("BALLAST_CLIENT_INDEX")).isNull();
    assertThat(unreadable.problem()).startsWith("environment variable GRPC_XDS_BOOTSTRAP: '" + missing + "' cannot be read");
    assertThat(notJson.problem()).startsWith("system property io.grpc.xds.bootstrapConfig: not a JSON object");
  }
}
