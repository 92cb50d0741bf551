package dev.ballast.examples;

import dev.ballast.internal.ProjectVersion;
import dev.ballast.internal.Ranges;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The examples' command lines, parsed by picocli: {@code --name value} (or {@code --name=value})
 * options, {@code --name} switches, {@code --help} and {@code --version}. A bad one is a {@link
 * UsageError} whose one-line message names the flag, the value as written and what was expected;
 * {@link #exitOnUsageError} prints it and exits with status 2. Picocli reads the words; the values
 * are checked here, where each program asks for one with its range.
 */
final class ExampleFlags {
  /** A mistake the user can fix on the command line: a bad flag, or a port that cannot be listened on. */
  static final class UsageError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageError(String message) {
      super(message, null, false, false);
    }
  }

  /** What a program does once its flags are read; it may throw {@link UsageError}. */
  interface Program {
    void run(ExampleFlags flags) throws Exception;
  }

  private final Map<String, String> values = new HashMap<>();
  private final Set<String> switches = new HashSet<>();
  private boolean helpRequested;
  private boolean versionRequested;

  private ExampleFlags() {}

  /**
   * Parses {@code args} and runs {@code program}; {@code --help} prints the usage and {@code help}
   * (a line per flag), {@code --version} the version, and a usage error prints {@code examples:
   * MESSAGE} on stderr and exits with status 2.
   */
  static void exitOnUsageError(
      String[] args, String usage, String help, Set<String> options, Set<String> switchNames, Program program)
      throws Exception {
    try {
      ExampleFlags flags = parse(args, usage, options, switchNames);
      if (flags.helpRequested) {
        System.out.println(usage);
        System.out.print(help);
      } else if (flags.versionRequested) {
        System.out.println("ballast examples " + ProjectVersion.get());
      } else {
        program.run(flags);
      }
    } catch (UsageError e) {
      System.err.println("examples: " + e.getMessage());
      System.exit(2);
    }
  }

  /**
   * The options (each takes a value) and switches (none) of one program, as picocli reads them;
   * a word that is neither, an option without its value, or an option given twice is a {@link
   * UsageError} that ends with {@code usage}.
   */
  static ExampleFlags parse(String[] args, String usage, Set<String> options, Set<String> switchNames) {
    CommandSpec command = CommandSpec.create();
    command.addOption(OptionSpec.builder("--help").usageHelp(true).build());
    command.addOption(OptionSpec.builder("-V", "--version").versionHelp(true).build());
    for (String name : options) {
      command.addOption(OptionSpec.builder(name).type(String.class).paramLabel("VALUE").build());
    }
    for (String name : switchNames) {
      command.addOption(OptionSpec.builder(name).arity("0").type(boolean.class).build());
    }
    ParseResult parsed;
    try {
      parsed = new CommandLine(command).parseArgs(args);
    } catch (CommandLine.UnmatchedArgumentException e) {
      String first = e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0);
      throw new UsageError("unknown option: " + Ranges.quote(first) + " (" + usage + ")");
    } catch (CommandLine.MissingParameterException e) {
      String name = e.getMissing().isEmpty() || !(e.getMissing().get(0) instanceof OptionSpec option)
          ? "an option" : option.longestName();
      throw new UsageError(name + ": missing value (" + usage + ")");
    } catch (CommandLine.OverwrittenOptionException e) {
      String name = e.getOverwritten() instanceof OptionSpec option ? option.longestName() : "an option";
      throw new UsageError(name + ": given more than once (expected: once; " + usage + ")");
    } catch (CommandLine.ParameterException e) {
      throw new UsageError(e.getMessage().replace("\n", " ") + " (" + usage + ")");
    }
    ExampleFlags flags = new ExampleFlags();
    flags.helpRequested = parsed.isUsageHelpRequested();
    flags.versionRequested = parsed.isVersionHelpRequested();
    for (OptionSpec option : parsed.matchedOptions()) {
      String name = option.longestName();
      if (switchNames.contains(name)) {
        flags.switches.add(name);
      } else if (options.contains(name)) {
        flags.values.put(name, option.getValue());
      }
    }
    return flags;
  }

  boolean has(String switchName) {
    return switches.contains(switchName);
  }

  /** Whether the option was given (so that a default derived from another option applies otherwise). */
  boolean given(String name) {
    return values.containsKey(name);
  }

  int integer(String name, int defaultValue, int min, int max) {
    String text = values.get(name);
    if (text == null) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageError(name + ": '" + text + "' (expected: " + min + ".." + max + ")");
  }

  /** A port, 0..65535; 0 asks the system for any free one. */
  int port(String name, int defaultValue) {
    return integer(name, defaultValue, 0, 65535);
  }

  /** Comma-separated ports, each 1..65535 (a client needs to know where its servers are). */
  List<Integer> ports(String name, List<Integer> defaultValue, int count) {
    String text = values.get(name);
    if (text == null) {
      return defaultValue;
    }
    String expected = " (expected: " + count + " ports separated by commas, each 1..65535, such as 50051,50052,50053)";
    String[] parts = text.split(",", -1);
    if (parts.length != count) {
      throw new UsageError(name + ": '" + text + "'" + expected);
    }
    List<Integer> ports = new ArrayList<>();
    for (String part : parts) {
      try {
        int port = Integer.parseInt(part.trim());
        if (port >= 1 && port <= 65535) {
          ports.add(port);
          continue;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new UsageError(name + ": '" + text + "'" + expected);
    }
    return List.copyOf(ports);
  }

  String text(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  /**
   * The one-line error for a port the program cannot listen on: "already in use", or the
   * operating system's reason (gRPC wraps it, in words that differ by transport).
   *
   * @param which empty when the flag's value is the port itself, else which port it led to, such
   *     as {@code task-1's port 50052}
   */
  static UsageError cannotListen(String flag, int value, String which, String expected, IOException e) {
    String reason = null;
    Throwable innermost = e;
    for (Throwable cause = e; cause != null && reason == null; cause = cause.getCause()) {
      if (cause.getMessage() != null && cause.getMessage().contains("already in use")) {
        reason = "already in use";
      }
      innermost = cause;
    }
    if (reason == null) {
      reason = "cannot listen: " + (innermost.getMessage() == null ? innermost.getClass().getSimpleName() : innermost.getMessage());
    }
    return new UsageError(flag + ": " + value + " (" + (which.isEmpty() ? "" : which + ": ") + reason
        + "; expected: " + expected + ")");
  }
}
