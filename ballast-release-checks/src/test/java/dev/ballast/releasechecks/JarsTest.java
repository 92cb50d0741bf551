package dev.ballast.releasechecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every jar Ballast publishes, test-jars included, as the module system sees it: a module name of
 * its own in its manifest that its packages begin with, and no package that another Ballast jar
 * has (a split package makes both jars unusable on the module path).
 */
final class JarsTest {
  /**
   * ballast-core's packages are {@code dev.ballast.<role>} ({@code pick}, {@code health}, ...), so
   * its module name names the module, not a package; none of them may begin another jar's name.
   */
  private static final String CORE = "dev.ballast.core";

  /** One Ballast jar as found on the class path. */
  record BallastJar(Path path, String moduleName, Set<String> packages) {}

  /** The Ballast jars on this test's class path: the packaged artifacts of the reactor. */
  static List<BallastJar> ballastJars() {
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<BallastJar> jars = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (!entry.endsWith(".jar") || !path.getFileName().toString().startsWith("ballast-")) {
        continue;
      }
      try (JarFile jar = new JarFile(path.toFile())) {
        if (jar.stream().noneMatch(e -> e.getName().startsWith("dev/ballast/"))) {
          continue;
        }
        String name = jar.getManifest() == null ? null : jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        ModuleDescriptor descriptor = ModuleFinder.of(path).findAll().stream()
            .map(ModuleReference::descriptor)
            .findFirst()
            .orElseThrow();
        assertThat(descriptor.name()).as(path + ": the module name the JDK reads (Automatic-Module-Name)").isEqualTo(name);
        jars.add(new BallastJar(path, name, descriptor.packages()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return jars;
  }

  @Test
  void everyPublishedArtifactIsHereAsAJar() {
    List<String> files = ballastJars().stream().map(j -> j.path().getFileName().toString()).toList();

    // ballast-core, -grpc, -grpc-xds, -quota, -quota-zookeeper, -micrometer, -sim, -cli and four test-jars;
    // PublishedPomsTest holds this module's dependencies to the published modules.
    assertThat(files).as("Ballast jars on the class path").hasSizeGreaterThanOrEqualTo(12);
    assertThat(files).filteredOn(f -> f.endsWith("-tests.jar")).hasSizeGreaterThanOrEqualTo(4);
  }

  @Test
  void everyMainJarHasItsSourcesAndJavadocJarBesideIt() {
    for (BallastJar jar : ballastJars()) {
      String file = jar.path().getFileName().toString();
      if (file.endsWith("-tests.jar")) {
        continue;
      }
      String stem = file.substring(0, file.length() - ".jar".length());
      assertThat(jar.path().resolveSibling(stem + "-sources.jar")).as(file + "'s sources jar").isRegularFile();
      assertThat(jar.path().resolveSibling(stem + "-javadoc.jar")).as(file + "'s javadoc jar").isRegularFile();
    }
  }

  @Test
  void eachJarsPackagesBeginWithItsModuleName() {
    List<BallastJar> jars = ballastJars();
    Set<String> names = jars.stream().map(BallastJar::moduleName).collect(Collectors.toSet());
    assertThat(names).as("module names").hasSameSizeAs(jars);
    for (BallastJar jar : jars) {
      for (String pkg : jar.packages()) {
        if (jar.moduleName().equals(CORE)) {
          String root = pkg.split("\\.").length >= 3 ? String.join(".", List.of(pkg.split("\\.")).subList(0, 3)) : pkg;
          assertThat(names).as(jar.path() + ": package " + pkg + " lies in another module's name space").noneMatch(n -> !n.equals(CORE) && (n.equals(root) || n.startsWith(root + ".")));
        } else {
          assertThat(pkg.equals(jar.moduleName()) || pkg.startsWith(jar.moduleName() + "."))
              .as(jar.path() + ": package " + pkg + " (expected: " + jar.moduleName() + " or below it, the jar's module name)")
              .isTrue();
        }
      }
    }
  }

  @Test
  void noTwoJarsShareAPackage() {
    Map<String, List<String>> jarsOfPackage = new TreeMap<>();
    for (BallastJar jar : ballastJars()) {
      for (String pkg : jar.packages()) {
        jarsOfPackage.computeIfAbsent(pkg, p -> new ArrayList<>()).add(jar.path().getFileName().toString());
      }
    }

    assertThat(jarsOfPackage).as("packages in more than one jar").allSatisfy((pkg, jars) -> assertThat(jars).as(pkg).hasSize(1));
  }
}
