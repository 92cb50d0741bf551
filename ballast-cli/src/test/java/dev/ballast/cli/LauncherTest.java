package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./ballast} script rebuilds the jar when anything that goes into it is
 * newer than the jar. Runs the script in a scratch tree with stand-ins for {@code mvn} and
 * {@code java} that only record that they ran.
 */
final class LauncherTest {
  private static final Path SCRIPT = Path.of("..", "ballast");
  private static final Instant BUILT = Instant.parse("2024-01-01T00:00:00Z");

  @Test
  void rebuildsWhenAResourceChanged(@TempDir Path root) throws Exception {
    Path tree = tree(root);
    touch(tree.resolve("ballast-sim/src/main/resources/ballast-sim.conf"), BUILT.plusSeconds(60));
    assertThat(runLauncher(root)).isTrue();
  }

  @Test
  void rebuildsWhenASourceChanged(@TempDir Path root) throws Exception {
    Path tree = tree(root);
    touch(tree.resolve("ballast-sim/src/main/java/Sim.java"), BUILT.plusSeconds(60));
    assertThat(runLauncher(root)).isTrue();
  }

  /** {@code examples/run} watches the same inputs: a service registration is a resource. */
  @Test
  void theExamplesLauncherRebuildsWhenAResourceChanged(@TempDir Path root) throws Exception {
    Path examplesScript = Path.of("..", "examples", "run");
    Path tree = tree(root);
    Files.createDirectories(tree.resolve("examples/target"));
    Files.copy(examplesScript, tree.resolve("examples/run"));
    touch(tree.resolve("examples/target/examples.jar"), BUILT);
    touch(tree.resolve("examples/src/main/resources/META-INF/services/io.grpc.NameResolverProvider"), BUILT.minusSeconds(60));
    // Directories under resources count too (a file added or removed): they are as old as the jar's inputs.
    touch(tree.resolve("examples/src/main/resources/META-INF/services"), BUILT.minusSeconds(60));
    touch(tree.resolve("examples/src/main/resources/META-INF"), BUILT.minusSeconds(60));
    assertThat(run(root, "examples/run", "server")).isFalse();

    touch(tree.resolve("examples/src/main/resources/META-INF/services/io.grpc.NameResolverProvider"), BUILT.plusSeconds(60));
    assertThat(run(root, "examples/run", "server")).isTrue();
  }

  @Test
  void doesNotRebuildWhenNothingChanged(@TempDir Path root) throws Exception {
    tree(root);
    assertThat(runLauncher(root)).isFalse();
  }

  /** {@code BALLAST_CLASSPATH} puts a user's jars after the command's own, where ServiceLoader finds their policies. */
  @Test
  void ballastClasspathAddsJarsAfterTheCommandsOwn(@TempDir Path root) throws Exception {
    tree(root);
    executable(root.resolve("bin/java"), "#!/bin/sh\necho \"$@\" > \"" + root.resolve("java-args") + "\"\n");

    run(root, "ballast", "sim", Map.of("BALLAST_CLASSPATH", "/opt/policies/primary-first.jar"));

    String jar = root.resolve("repo/ballast-cli/target/ballast.jar").toString();
    assertThat(Files.readString(root.resolve("java-args")).strip())
        .endsWith("-cp " + jar + ":/opt/policies/primary-first.jar dev.ballast.cli.BallastCommand sim");
    run(root, "ballast", "subset", Map.of());
    assertThat(Files.readString(root.resolve("java-args")).strip()).isEqualTo("-jar " + jar + " subset");
  }

  /** A repository with a built jar and every input older than it. */
  private static Path tree(Path root) throws Exception {
    assumeTrue(Files.isRegularFile(SCRIPT) && Files.isExecutable(Path.of("/bin/bash")));
    Path tree = Files.createDirectories(root.resolve("repo"));
    Files.copy(SCRIPT, tree.resolve("ballast"));
    touch(tree.resolve("pom.xml"), BUILT.minusSeconds(60));
    touch(tree.resolve("ballast-sim/src/main/java/Sim.java"), BUILT.minusSeconds(60));
    touch(tree.resolve("ballast-sim/src/main/resources/ballast-sim.conf"), BUILT.minusSeconds(60));
    touch(tree.resolve("ballast-cli/target/ballast.jar"), BUILT);
    Path bin = Files.createDirectories(root.resolve("bin"));
    executable(bin.resolve("mvn"), "#!/bin/sh\ntouch \"" + root.resolve("built") + "\"\n");
    executable(bin.resolve("java"), "#!/bin/sh\nexit 0\n");
    return tree;
  }

  /** Runs the launcher; true if it invoked Maven. */
  private static boolean runLauncher(Path root) throws Exception {
    return run(root, "ballast", "subset");
  }

  /** Runs {@code script} (relative to the scratch repository) with one argument; true if it invoked Maven. */
  private static boolean run(Path root, String script, String argument) throws Exception {
    return run(root, script, argument, Map.of());
  }

  /** {@link #run(Path, String, String)} with {@code environment} added to the script's. */
  private static boolean run(Path root, String script, String argument, Map<String, String> environment) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("/bin/bash", root.resolve("repo").resolve(script).toString(), argument);
    pb.environment().remove("BALLAST_CLASSPATH");
    pb.environment().remove("BALLAST_JAVA_OPTS");
    pb.environment().putAll(environment);
    pb.environment().put("PATH", root.resolve("bin") + ":/usr/bin:/bin");
    pb.redirectErrorStream(true);
    pb.redirectOutput(root.resolve("output").toFile());
    Process process = pb.start();
    assertThat(process.waitFor()).as(Files.readString(root.resolve("output"))).isZero();
    return Files.exists(root.resolve("built"));
  }

  private static void touch(Path file, Instant time) throws Exception {
    Files.createDirectories(file.getParent());
    if (!Files.exists(file)) {
      Files.createFile(file);
    }
    Files.setLastModifiedTime(file, FileTime.from(time));
  }

  private static void executable(Path file, String content) throws Exception {
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
