package dev.ballast.grpc.xds;

import dev.ballast.grpc.xds.testing.ManagementServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The management server of this JVM's tests, and the bootstrap that points gRPC at it. gRPC-Java
 * reads its bootstrap once per process, so every test of the JVM shares both; each test serves
 * its own service names. The bootstrap is a file written at test time and named by the system
 * property {@code io.grpc.xds.bootstrap}, as a deployment would name it; its node metadata gives
 * this client index {@value #CLIENT_INDEX} of {@value #CLIENT_COUNT}, the index as a string (as a
 * mesh's injector writes it) and the count as a number.
 */
final class SharedControlPlane {
  static final int CLIENT_INDEX = 1;
  static final int CLIENT_COUNT = 4;

  private static ManagementServer server;

  private SharedControlPlane() {}

  static synchronized ManagementServer get() {
    if (server == null) {
      try {
        ManagementServer started = new ManagementServer();
        Path bootstrap = Files.createTempFile("ballast-xds-bootstrap", ".json");
        bootstrap.toFile().deleteOnExit();
        String metadata =
            "{\"BALLAST_CLIENT_INDEX\": \"" + CLIENT_INDEX + "\", \"BALLAST_CLIENT_COUNT\": " + CLIENT_COUNT + "}";
        Files.writeString(bootstrap, started.bootstrap("ballast-xds-test", metadata), StandardCharsets.UTF_8);
        System.setProperty("io.grpc.xds.bootstrap", bootstrap.toString());
        server = started;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return server;
  }
}
