package dev.ballast.releasechecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * What each published pom carries (docs/architecture.md, "What a published module carries"): its
 * description, the project's licence, home, source control and developers; every published module
 * in ballast-bom; every other module kept out of every repository.
 */
final class PublishedPomsTest {
  /** What a module that is never published sets, each to true. */
  static final List<String> UNPUBLISHED_SKIPS = List.of(
      "maven.deploy.skip", "maven.source.skip", "maven.javadoc.skip", "japicmp.skip");

  /** The unpublished modules that are not installed either: the applications. */
  static final List<String> NOT_INSTALLED = List.of("ballast-benchmarks", "examples");

  private static final List<String> METADATA = List.of("url", "licenses", "developers", "scm");

  private final Path root = Poms.root();
  private final Element parent = Poms.read(root.resolve("pom.xml"));
  private final Element bom = Poms.read(root.resolve("ballast-bom/pom.xml"));

  /** The reactor's modules, as the root pom lists them (directory names). */
  private List<String> modules() {
    List<String> modules = new ArrayList<>();
    for (Element module : Poms.children(Poms.at(parent, "modules").orElseThrow(), "module")) {
      modules.add(module.getTextContent().trim());
    }
    return modules;
  }

  private Element pom(String module) {
    return Poms.read(root.resolve(module).resolve("pom.xml"));
  }

  private static boolean published(Element pom) {
    return !"true".equals(Poms.textAt(pom, "properties", "maven.deploy.skip"));
  }

  /** The published modules' artifactIds, ballast-bom's excepted. */
  private Set<String> publishedJars() {
    Set<String> jars = new TreeSet<>();
    for (String module : modules()) {
      Element pom = pom(module);
      if (published(pom) && !Poms.textAt(pom, "packaging").equals("pom")) {
        jars.add(Poms.textAt(pom, "artifactId"));
      }
    }
    return jars;
  }

  @Test
  void everyPublishedPomDescribesItsModuleInItsOwnWords() {
    Set<String> descriptions = new LinkedHashSet<>();
    for (String module : modules()) {
      Element pom = pom(module);
      if (published(pom)) {
        String description = Poms.textAt(pom, "description");
        assertThat(description).as(module + "/pom.xml: <description>").isNotBlank();
        assertThat(descriptions.add(description)).as(module + "/pom.xml: <description> is another module's").isTrue();
      }
    }
  }

  @Test
  void theParentCarriesTheProjectsLicenceHomeSourceControlAndDevelopers() {
    assertThat(Poms.textAt(parent, "licenses", "license", "name")).isEqualTo("Apache-2.0");
    for (String element : METADATA) {
      assertThat(Poms.textAt(parent, element)).as("pom.xml: <" + element + ">").isNotBlank();
    }
    assertThat(Poms.text(root.resolve("LICENSE"))).contains("Apache License", "Version 2.0, January 2004");
    assertThat(Poms.text(root.resolve("NOTICE"))).startsWith("Ballast\n");
  }

  @Test
  void theBomRepeatsTheParentsMetadataAndInheritsNothing() {
    assertThat(Poms.at(bom, "parent")).as("ballast-bom/pom.xml: <parent> (importing it would import the build's versions)").isEmpty();
    for (String element : METADATA) {
      assertThat(Poms.at(bom, element).map(PublishedPomsTest::normalized))
          .as("ballast-bom/pom.xml: <" + element + "> against pom.xml's")
          .isEqualTo(Poms.at(parent, element).map(PublishedPomsTest::normalized));
    }
    assertThat(Poms.textAt(bom, "version")).isEqualTo(Poms.textAt(parent, "version"));
  }

  @Test
  void theBomManagesEveryPublishedArtifactAndNothingElse() {
    Set<String> expected = new TreeSet<>();
    for (String module : modules()) {
      Element pom = pom(module);
      if (published(pom) && !Poms.textAt(pom, "packaging").equals("pom")) {
        String artifactId = Poms.textAt(pom, "artifactId");
        expected.add(artifactId);
        if (Poms.text(root.resolve(module).resolve("pom.xml")).contains("<goal>test-jar</goal>")) {
          expected.add(artifactId + ":test-jar");
        }
      }
    }
    Set<String> managed = new TreeSet<>();
    for (Element dependency : Poms.children(Poms.at(bom, "dependencyManagement", "dependencies").orElseThrow(), "dependency")) {
      String type = Poms.textAt(dependency, "type");
      assertThat(Poms.textAt(dependency, "groupId")).isEqualTo("dev.ballast");
      assertThat(Poms.textAt(dependency, "version")).isEqualTo("${project.version}");
      managed.add(Poms.textAt(dependency, "artifactId") + (type.isEmpty() ? "" : ":" + type));
    }

    assertThat(managed).as("ballast-bom/pom.xml's managed artifacts").isEqualTo(expected);
  }

  @Test
  void aModuleThatIsNotPublishedIsNeitherInstalledNorDeployedNorChecked() {
    List<String> unpublished = new ArrayList<>();
    for (String module : modules()) {
      Element pom = pom(module);
      if (!published(pom)) {
        unpublished.add(module);
        for (String skip : UNPUBLISHED_SKIPS) {
          assertThat(Poms.textAt(pom, "properties", skip)).as(module + "/pom.xml: <" + skip + ">").isEqualTo("true");
        }
      }
    }
    assertThat(unpublished).contains("ballast-benchmarks", "examples", "ballast-release-checks");
    for (String module : NOT_INSTALLED) {
      assertThat(Poms.textAt(pom(module), "properties", "maven.install.skip")).as(module + "/pom.xml: <maven.install.skip>").isEqualTo("true");
    }
  }

  @Test
  void everyPublishedJarModuleBuildsItsJavadocJar() {
    for (String module : modules()) {
      Element pom = pom(module);
      if (published(pom) && !Poms.textAt(pom, "packaging").equals("pom")) {
        boolean declared = Poms.children(Poms.at(pom, "build", "plugins").orElseThrow(() -> new AssertionError(module + "/pom.xml: no <build><plugins>")), "plugin")
            .stream()
            .anyMatch(plugin -> Poms.textAt(plugin, "artifactId").equals("maven-javadoc-plugin"));
        assertThat(declared).as(module + "/pom.xml: maven-javadoc-plugin in <build><plugins> (the javadoc jar and the doclint gate)").isTrue();
      }
    }
  }

  @Test
  void theseChecksSeeEveryPublishedJar() {
    Element self = pom("ballast-release-checks");
    Set<String> dependencies = new TreeSet<>();
    for (Element dependency : Poms.children(Poms.at(self, "dependencies").orElseThrow(), "dependency")) {
      if (Poms.textAt(dependency, "type").isEmpty()) {
        dependencies.add(Poms.textAt(dependency, "artifactId"));
      }
    }
    assertThat(dependencies).as("ballast-release-checks/pom.xml's dependencies").containsAll(publishedJars());
  }

  @Test
  void theGrpcConsumerProjectDependsOnEveryPublishedArtifactThroughTheBom() {
    Element app = Poms.read(root.resolve("ballast-release-checks/src/it/grpc-app/pom.xml"));
    Set<String> ballast = new TreeSet<>();
    for (Element dependency : Poms.children(Poms.at(app, "dependencies").orElseThrow(), "dependency")) {
      if (Poms.textAt(dependency, "groupId").equals("dev.ballast")) {
        String type = Poms.textAt(dependency, "type");
        assertThat(Poms.textAt(dependency, "version")).as("grpc-app: " + Poms.textAt(dependency, "artifactId") + "'s version (expected: none, the BOM's)").isEmpty();
        ballast.add(Poms.textAt(dependency, "artifactId") + (type.isEmpty() ? "" : ":" + type));
      }
    }
    Set<String> managed = new TreeSet<>();
    for (Element dependency : Poms.children(Poms.at(bom, "dependencyManagement", "dependencies").orElseThrow(), "dependency")) {
      String type = Poms.textAt(dependency, "type");
      managed.add(Poms.textAt(dependency, "artifactId") + (type.isEmpty() ? "" : ":" + type));
    }

    assertThat(ballast).as("ballast-release-checks/src/it/grpc-app/pom.xml's Ballast dependencies").isEqualTo(managed);
  }

  /** An element's text with its whitespace collapsed, attributes and comments aside. */
  private static String normalized(Element element) {
    return element.getTextContent().trim().replaceAll("\\s+", " ");
  }
}
