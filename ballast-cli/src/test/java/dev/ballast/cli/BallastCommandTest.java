package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

final class BallastCommandTest {

  /** Every command, so that one added later without a version provider fails here. */
  private static List<List<String>> everyCommand() {
    List<List<String>> commands = new ArrayList<>();
    commands.add(List.of());
    for (String name : new CommandLine(new BallastCommand()).getSubcommands().keySet()) {
      commands.add(List.of(name));
    }
    return commands;
  }

  @Test
  void anUnknownCommandIsOneLineNamingItAndTheCommands() {
    SimCommandTest.Result result = SimCommandTest.run("simulate");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo("ballast: 'simulate': unknown command (expected: one of subset, sim, quota-server)" + System.lineSeparator());
    assertThat(result.out()).isEmpty();
  }

  @Test
  void versionFlagPrintsTheProjectsVersionOnEveryCommand() {
    String projectVersion = System.getProperty("ballast.project.version");
    assertThat(projectVersion).as("the build passes the pom's version to the tests").isNotBlank();
    List<List<String>> commands = everyCommand();
    assertThat(commands).hasSizeGreaterThanOrEqualTo(4);
    for (List<String> command : commands) {
      for (String flag : List.of("-V", "--version")) {
        List<String> args = new ArrayList<>(command);
        args.add(flag);
        SimCommandTest.Result result = SimCommandTest.run(args.toArray(String[]::new));
        assertThat(result.exitCode()).as("ballast %s", args).isZero();
        assertThat(result.out()).as("ballast %s", args).isEqualTo("ballast " + projectVersion + System.lineSeparator());
        assertThat(result.err()).as("ballast %s", args).isEmpty();
      }
    }
  }
}
