package dev.ballast.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ballast} command. */
@Command(
    name = "ballast",
    mixinStandardHelpOptions = true,
    versionProvider = BallastVersion.class,
    description = "Load balancing inside the datacenter: subsetting, health, policies, simulation, quotas.",
    subcommands = {SubsetCommand.class, SimCommand.class, QuotaServerCommand.class})
public final class BallastCommand implements Runnable {
  /** Exit code for usage errors: bad options or values. */
  static final int USAGE_ERROR = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "missing command (expected: one of " + String.join(", ", spec.subcommands().keySet()) + ")");
  }

  public static void main(String[] args) {
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs the command line; returns the exit code. */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(new BallastCommand());
    commandLine.setOut(out);
    commandLine.setErr(err);
    // A usage error is one line naming the offending value and what was expected, then exit 2.
    commandLine.setParameterExceptionHandler(
        (ex, arguments) -> {
          err.println("ballast: " + oneLine(ex.getMessage()));
          err.flush();
          return USAGE_ERROR;
        });
    return commandLine.execute(args);
  }

  /** Messages quote the offending value, which may itself contain line breaks. */
  static String oneLine(String message) {
    return message.replace("\r", "\\r").replace("\n", "\\n");
  }
}
