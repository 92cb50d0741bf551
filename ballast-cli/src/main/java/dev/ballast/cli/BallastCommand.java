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

  /**
   * The {@code ballast} command: runs the command line and exits with its code (2 for a usage
   * error).
   *
   * @param args the command line
   */
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
          err.println("ballast: " + oneLine(message(ex)));
          err.flush();
          return USAGE_ERROR;
        });
    return commandLine.execute(args);
  }

  /**
   * Picocli's own parse errors in the shape of every other usage error, {@code "key: value
   * (expected: ...)"}: they name what the user wrote and say what was expected instead.
   */
  static String message(CommandLine.ParameterException ex) {
    CommandLine command = ex.getCommandLine();
    String help = command.getCommandSpec().qualifiedName() + " --help";
    if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
      String argument = unmatched.getUnmatched().get(0);
      if (argument.startsWith("-")) {
        return "'" + argument + "': unknown option (expected: an option " + help + " lists)";
      }
      if (!command.getSubcommands().isEmpty()) {
        return "'" + argument + "': unknown command (expected: one of "
            + String.join(", ", command.getSubcommands().keySet()) + ")";
      }
      return "'" + argument + "': unexpected argument (expected: options only, as " + help + " lists them)";
    }
    if (ex instanceof CommandLine.MissingParameterException missing
        && missing.getMissing().size() == 1
        && missing.getMissing().get(0) instanceof CommandLine.Model.OptionSpec option) {
      return option.longestName() + ": missing value (expected: " + option.paramLabel() + " after " + option.longestName() + ")";
    }
    if (ex.getArgSpec() instanceof CommandLine.Model.OptionSpec option
        && ex.getValue() != null
        && ex.getMessage().startsWith("Invalid value")) {
      return option.longestName() + ": '" + ex.getValue() + "' (expected: " + expected(option) + ")";
    }
    return ex.getMessage();
  }

  private static String expected(CommandLine.Model.OptionSpec option) {
    Class<?> type = option.type();
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "a whole number";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "no value, or true or false";
    }
    return option.paramLabel();
  }

  /** Messages quote the offending value, which may itself contain line breaks. */
  static String oneLine(String message) {
    return message.replace("\r", "\\r").replace("\n", "\\n");
  }
}
