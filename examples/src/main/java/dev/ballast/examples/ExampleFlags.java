package dev.ballast.examples;

import dev.ballast.internal.ProjectVersion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The examples' command lines: {@code --name value} options and {@code --name} switches. A bad one
 * is a {@link UsageError} whose one-line message names the flag, the value as written and what
 * was expected; {@link #exitOnUsageError} prints it and exits with status 2.
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

  private final String usage;
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> switches = new HashSet<>();

  private ExampleFlags(String usage) {
    this.usage = usage;
  }

  /**
   * Parses {@code args} and runs {@code program}; {@code --help} prints the usage and {@code help}
   * (a line per flag), and a usage error prints {@code examples: MESSAGE} on stderr and exits
   * with status 2.
   */
  static void exitOnUsageError(
      String[] args, String usage, String help, Set<String> options, Set<String> switchNames, Program program)
      throws Exception {
    if (List.of(args).contains("--help")) {
      System.out.println(usage);
      System.out.print(help);
      return;
    }
    if (List.of(args).contains("-V") || List.of(args).contains("--version")) {
      System.out.println("ballast examples " + ProjectVersion.get());
      return;
    }
    try {
      program.run(parse(args, usage, options, switchNames));
    } catch (UsageError e) {
      System.err.println("examples: " + e.getMessage());
      System.exit(2);
    }
  }

  static ExampleFlags parse(String[] args, String usage, Set<String> options, Set<String> switchNames) {
    ExampleFlags flags = new ExampleFlags(usage);
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (switchNames.contains(name)) {
        flags.switches.add(name);
      } else if (options.contains(name)) {
        if (i + 1 == args.length) {
          throw new UsageError(name + ": missing value (" + usage + ")");
        }
        flags.values.put(name, args[++i]);
      } else {
        throw new UsageError("unknown option: '" + name + "' (" + usage + ")");
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
