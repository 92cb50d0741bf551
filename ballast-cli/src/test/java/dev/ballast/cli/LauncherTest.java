package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./ballast} script rebuilds the jar when anything that goes into it is
 * newer than the jar, and shows that the build is working ({@code scripts/maven-build}). Runs the
 * script in a scratch tree with stand-ins for {@code mvn} and {@code java} that record that they ran
 * and print what Maven would.
 */
final class LauncherTest {
  private static final Path SCRIPT = Path.of("..", "ballast");
  private static final Path BUILD_SCRIPT = Path.of("..", "scripts", "maven-build");
  /** What Maven prints for two modules: each module's header among lines of its plugins. */
  private static final String MAVEN_OUTPUT = String.join("\n",
      "[INFO] Scanning for projects...",
      "[INFO] ------------------------< dev.ballast:ballast-core >------------------------",
      "[INFO] Building Ballast core 0.1.0-SNAPSHOT                               [1/2]",
      "[INFO] Compiling 120 source files with javac [debug release 17] to target/classes",
      "[INFO] Building jar: /repo/ballast-core/target/ballast-core-0.1.0-SNAPSHOT.jar",
      "[INFO] Building Ballast command line 0.1.0-SNAPSHOT                       [2/2]",
      "[INFO] BUILD SUCCESS");
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

  @Test
  void aBuildSaysWhichModuleItIsOnAndHowLongItTook(@TempDir Path root) throws Exception {
    Path tree = tree(root);
    touch(tree.resolve("ballast-sim/src/main/java/Sim.java"), BUILT.plusSeconds(60));
    // Maven may end its output with a terminal reset and no newline.
    executable(root.resolve("bin/mvn"), "#!/bin/sh\ncat <<'OUT'\n" + MAVEN_OUTPUT + "\nOUT\nprintf '\\033[0m'\n");

    Launch launch = launch(root, Map.of()).finish();

    assertThat(launch.exitCode()).isZero();
    assertThat(launch.lines()).filteredOn(l -> l.startsWith("ballast: building Ballast"))
        .hasSize(2)
        .satisfiesExactly(
            first -> assertThat(first).matches("ballast: building Ballast core \\(1 of 2\\), \\d+ s so far"),
            second -> assertThat(second).matches("ballast: building Ballast command line \\(2 of 2\\), \\d+ s so far"));
    assertThat(launch.lines()).anyMatch(l -> l.matches("ballast: built in \\d+ s"));
    assertThat(launch.output()).doesNotContain("Compiling", "Building jar", "BUILD SUCCESS");
  }

  @Test
  void aFailedBuildShowsMavensOutputWhole(@TempDir Path root) throws Exception {
    Path tree = tree(root);
    touch(tree.resolve("ballast-sim/src/main/java/Sim.java"), BUILT.plusSeconds(60));
    StringBuilder output = new StringBuilder(MAVEN_OUTPUT.replace("[INFO] BUILD SUCCESS", ""));
    for (int i = 0; i < 200; i++) {
      output.append("[ERROR] line ").append(i).append(" of what went wrong\n");
    }
    executable(root.resolve("bin/mvn"), "#!/bin/sh\ncat <<'OUT'\n" + output + "OUT\nexit 1\n");

    Launch launch = launch(root, Map.of()).finish();

    assertThat(launch.exitCode()).isEqualTo(1);
    assertThat(launch.output()).contains(output.toString().strip());
    assertThat(launch.lines()).last().isEqualTo("ballast: the build failed (Maven's output is above)");
  }

  /**
   * A module that prints nothing for a while (a first build downloading dependencies) is said to
   * be still building. Maven's stand-in waits until the test has seen that line, so the test waits
   * for an event, not for an amount of time.
   */
  @Test
  void aModuleThatIsQuietForAWhileIsSaidToBeStillBuilding(@TempDir Path root) throws Exception {
    Path tree = tree(root);
    touch(tree.resolve("ballast-sim/src/main/java/Sim.java"), BUILT.plusSeconds(60));
    Path go = root.resolve("go");
    executable(root.resolve("bin/mvn"), "#!/bin/sh\n"
        + "echo '[INFO] Building Ballast simulator 0.1.0-SNAPSHOT                  [1/1]'\n"
        + "i=0; while [ ! -f '" + go + "' ] && [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done\n"
        + "echo '[INFO] BUILD SUCCESS'\n");

    Launch launch = launch(root, Map.of("BALLAST_BUILD_QUIET_SECONDS", "0.2"));
    String still = "ballast: still building Ballast simulator (1 of 1), ";
    for (int i = 0; i < 12000 && !Files.readString(root.resolve("output")).contains(still); i++) {
      Thread.sleep(10);
    }
    Files.createFile(go);
    launch.finish();

    assertThat(launch.exitCode()).isZero();
    assertThat(launch.lines()).anyMatch(l -> l.matches(Pattern.quote(still) + "\\d+ s so far"));
  }

  /** A repository with a built jar and every input older than it. */
  private static Path tree(Path root) throws Exception {
    assumeTrue(Files.isRegularFile(SCRIPT) && Files.isExecutable(Path.of("/bin/bash")));
    Path tree = Files.createDirectories(root.resolve("repo"));
    Files.copy(SCRIPT, tree.resolve("ballast"));
    Files.createDirectories(tree.resolve("scripts"));
    Files.copy(BUILD_SCRIPT, tree.resolve("scripts/maven-build"));
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

  /** The launcher {@code ./ballast subset}, started with {@code environment} added. */
  private static Launch launch(Path root, Map<String, String> environment) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("/bin/bash", root.resolve("repo/ballast").toString(), "subset");
    pb.environment().remove("BALLAST_CLASSPATH");
    pb.environment().remove("BALLAST_JAVA_OPTS");
    pb.environment().put("PATH", root.resolve("bin") + ":/usr/bin:/bin");
    pb.environment().putAll(environment);
    pb.redirectErrorStream(true);
    pb.redirectOutput(root.resolve("output").toFile());
    return new Launch(pb.start(), root.resolve("output"));
  }

  /** A launcher process and the file its output goes to. */
  private static final class Launch {
    private final Process process;
    private final Path output;
    private int exitCode = -1;

    Launch(Process process, Path output) {
      this.process = process;
      this.output = output;
    }

    /** Waits for the launcher to end (a hang guard: it ends at once once its Maven has). */
    Launch finish() throws Exception {
      assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("the launcher ended").isTrue();
      exitCode = process.exitValue();
      return this;
    }

    int exitCode() {
      return exitCode;
    }

    String output() throws Exception {
      return Files.readString(output);
    }

    List<String> lines() throws Exception {
      return Files.readAllLines(output);
    }
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
