package com.example.grpcapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.JarURLConnection;
import java.net.URL;
import java.util.jar.Manifest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every artifact Ballast publishes, resolved through the BOM, carries its classes and its module name. */
class PublishedArtifactsTest {
  @ParameterizedTest(name = "{0} holds {1}, as module {2}")
  @CsvSource({
    "ballast-core, dev/ballast/pick/Balancer.class, dev.ballast.core",
    "ballast-grpc, dev/ballast/grpc/BallastServer.class, dev.ballast.grpc",
    "ballast-grpc-xds, dev/ballast/grpc/xds/BallastXds.class, dev.ballast.grpc.xds",
    "ballast-quota, dev/ballast/quota/QuotaClient.class, dev.ballast.quota",
    "ballast-quota-zookeeper, dev/ballast/quota/zookeeper/ZooKeeperQuotaReplica.class, dev.ballast.quota.zookeeper",
    "ballast-micrometer, dev/ballast/micrometer/BallastMeters.class, dev.ballast.micrometer",
    "ballast-sim, dev/ballast/sim/SuiteRunner.class, dev.ballast.sim",
    "ballast-cli, dev/ballast/cli/BallastCommand.class, dev.ballast.cli",
    "ballast-http, dev/ballast/http/BallastHttpClient.class, dev.ballast.http",
    "ballast-testkit, dev/ballast/testkit/PolicyContractKit.class, dev.ballast.testkit",
    "ballast-core (tests), dev/ballast/testing/FakeClock.class, dev.ballast.testing",
    "ballast-grpc (tests), dev/ballast/grpc/testing/StaticResolverProvider.class, dev.ballast.grpc.testing",
    "ballast-grpc-xds (tests), dev/ballast/grpc/xds/testing/ManagementServer.class, dev.ballast.grpc.xds.testing",
    "ballast-quota (tests), dev/ballast/quota/fleet/QuotaFleet.class, dev.ballast.quota.fleet",
  })
  void isOnTheClassPathWithItsModuleName(String artifact, String classFile, String moduleName) throws Exception {
    URL url = getClass().getClassLoader().getResource(classFile);
    assertNotNull(url, artifact + ": no " + classFile + " on the class path");

    JarURLConnection jar = (JarURLConnection) url.openConnection();
    Manifest manifest = jar.getManifest();
    assertEquals(moduleName, manifest.getMainAttributes().getValue("Automatic-Module-Name"), artifact + " at " + jar.getJarFileURL());
  }
}
