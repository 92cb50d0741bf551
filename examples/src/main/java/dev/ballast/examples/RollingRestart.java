package dev.ballast.examples;

import io.grpc.ManagedChannel;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A deploy under load, in one process on 127.0.0.1: the example's three tasks ({@link Fleet})
 * restart one at a time while clients keep sending, first with lame duck, then without, and the
 * failed calls of each are counted. A task is restarted once the one before it is back in
 * rotation (it answered {@value Fleet#SERVED_WHEN_IN_ROTATION} calls), so the run takes as long
 * as the restarts do and stops by itself. Exit status 0 when no call failed with lame duck, 1
 * otherwise.
 */
public final class RollingRestart {
  static final String USAGE = "usage: examples/run restart [--port N] [--clients C] [--calls-at-once N] [--workers W]"
      + " [--no-limiter]";
  static final String HELP = """
        --port N           the tasks' first port on 127.0.0.1 (default 0: three free ports)
        --clients C        clients sending at once, each with its subset of 2 tasks (default 3)
        --calls-at-once N  calls each client keeps in flight, each sent when the last ended (default 4)
        --workers W        each task serves up to W x 100 calls/s (default 16)
        --no-limiter       the tasks run without the admission limiter
      Restarts every task once with lame duck, then once stopping each at once, and prints the calls and failed
      calls of each. Exit status 0 when no call failed with lame duck, 1 otherwise.
      """;
  static final int DEFAULT_CLIENTS = 3;
  static final int DEFAULT_CALLS_AT_ONCE = 4;
  /** Long enough that only a call stuck for good misses it, however busy the machine. */
  static final Duration DEADLINE = Duration.ofSeconds(10);
  /** Far more than a restart takes; reached only if a task never comes back, and then said so. */
  private static final Duration BACK_IN_ROTATION_WITHIN = Duration.ofSeconds(60);
  /** The servers' own lines (lame duck, drain) would interleave with the report; held here so that the level stays. */
  private static final Logger SERVER_LOG = Logger.getLogger("dev.ballast.grpc");
  /** Bounds the load even if this program were stuck: it stops by itself. */
  private static final long LOAD_SECONDS_AT_MOST = 600;

  /** The calls sent during one rolling restart, by outcome (task names for served calls). */
  record Phase(String name, Map<String, Long> outcomes) {
    long calls() {
      return outcomes.values().stream().mapToLong(Long::longValue).sum();
    }

    long failed() {
      return calls() - outcomes.entrySet().stream().filter(e -> e.getKey().startsWith("task-")).mapToLong(Map.Entry::getValue).sum();
    }

    /** The failed calls by outcome, such as {@code UNAVAILABLE 9, shed 2}. */
    String failures() {
      List<String> parts = new ArrayList<>();
      outcomes.forEach((outcome, count) -> {
        if (!outcome.startsWith("task-")) {
          parts.add(outcome.replace("failed: ", "") + " " + count);
        }
      });
      return String.join(", ", parts);
    }
  }

  public static void main(String[] args) throws Exception {
    ExampleFlags.exitOnUsageError(
        args, USAGE, HELP, Set.of("--port", "--clients", "--calls-at-once", "--workers"), Set.of("--no-limiter"),
        flags -> {
          SERVER_LOG.setLevel(Level.WARNING);
          int firstPort = flags.port("--port", 0);
          int clients = flags.integer("--clients", DEFAULT_CLIENTS, 1, 100);
          int callsAtOnce = flags.integer("--calls-at-once", DEFAULT_CALLS_AT_ONCE, 1, 1000);
          int workers = flags.integer("--workers", Fleet.DEFAULT_WORKERS, 1, 1000);
          boolean limiter = !flags.has("--no-limiter");
          List<Phase> phases;
          try (Fleet fleet = Fleet.start(firstPort, limiter, workers)) {
            System.out.printf(Locale.ROOT,
                "rolling restart of %d tasks on 127.0.0.1:%s (admission limiter %s), %d clients with %d calls in flight each%n",
                Fleet.TASKS, ExampleClient.join(fleet.ports()), limiter ? "on" : "off", clients, callsAtOnce);
            phases = run(fleet, clients, callsAtOnce, List.of(true, false), System.out);
          } catch (IllegalStateException e) {
            System.out.println();
            System.err.println("examples: restart: " + e.getMessage());
            System.exit(1);
            return;
          }
          System.out.println(report(phases));
          System.exit(phases.get(0).failed() == 0 ? 0 : 1);
        });
  }

  /**
   * Starts {@code clients} clients, each keeping {@code callsAtOnce} calls in flight, waits
   * until every task serves, then restarts every task once per entry of {@code lameDuckPhases}
   * (true: with lame duck). Returns each phase's calls.
   */
  static List<Phase> run(Fleet fleet, int clients, int callsAtOnce, List<Boolean> lameDuckPhases, PrintStream out)
      throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    List<CallLoad> loads = new ArrayList<>();
    try {
      for (int c = 0; c < clients; c++) {
        ManagedChannel channel = ExampleClient.channel(fleet.ports(), c, clients);
        channels.add(channel);
        loads.add(CallLoad.backToBack(channel, callsAtOnce, DEADLINE, LOAD_SECONDS_AT_MOST));
      }
      for (Fleet.Task task : fleet.tasks()) {
        awaitInRotation(task, "started");
      }
      for (int c = 0; c < loads.size(); c++) {
        if (!loads.get(c).awaitServed(BACK_IN_ROTATION_WITHIN)) {
          throw new IllegalStateException("client " + c + " had no call served in " + BACK_IN_ROTATION_WITHIN.toSeconds()
              + " s (expected: its channel connected)");
        }
      }
      // The clients' first calls, sent while they connected, belong to no restart. Each client
      // has had an answer by now: its calls from here on go to a connected channel.
      awaitEnded(nextTallies(loads));
      out.printf("all %d tasks serving%n", Fleet.TASKS);
      List<Phase> phases = new ArrayList<>();
      for (boolean lameDuck : lameDuckPhases) {
        String name = lameDuck ? "with lame duck" : "without lame duck";
        out.print(name + ":");
        for (int i = 0; i < Fleet.TASKS; i++) {
          Fleet.Task restarted = fleet.restart(i, lameDuck);
          awaitInRotation(restarted, "restarted");
          out.print(" " + restarted.name + " restarted" + (i < Fleet.TASKS - 1 ? "," : ""));
          out.flush();
        }
        out.println();
        // Every call sent during the restarts, counted once it has ended.
        phases.add(new Phase(name, awaitEnded(nextTallies(loads))));
      }
      return phases;
    } finally {
      for (CallLoad load : loads) {
        load.close();
      }
      for (ManagedChannel channel : channels) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  private static void awaitInRotation(Fleet.Task task, String what) throws InterruptedException {
    if (!task.awaitInRotation(BACK_IN_ROTATION_WITHIN)) {
      throw new IllegalStateException(task.name + " " + what + " on 127.0.0.1:" + task.port + " but answered "
          + task.answered() + " calls in " + BACK_IN_ROTATION_WITHIN.toSeconds() + " s (expected: at least "
          + Fleet.SERVED_WHEN_IN_ROTATION + ")");
    }
  }

  private static List<CallLoad.Tally> nextTallies(List<CallLoad> loads) {
    List<CallLoad.Tally> tallies = new ArrayList<>();
    for (CallLoad load : loads) {
      tallies.add(load.nextTally());
    }
    return tallies;
  }

  /** The outcomes of every call of the tallies, summed, once all have ended. */
  private static Map<String, Long> awaitEnded(List<CallLoad.Tally> tallies) throws InterruptedException {
    Map<String, Long> total = new TreeMap<>();
    for (CallLoad.Tally tally : tallies) {
      tally.awaitEnded().outcomes().forEach((outcome, count) -> total.merge(outcome, count, Long::sum));
    }
    return total;
  }

  /** The table of phases and a one-line result. */
  static String report(List<Phase> phases) {
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%-20s %10s %8s%n", "", "calls", "failed"));
    for (Phase phase : phases) {
      text.append(String.format(Locale.ROOT, "%-20s %,10d %,8d%s%n", phase.name(), phase.calls(), phase.failed(),
          phase.failed() == 0 ? "" : "   (" + phase.failures() + ")"));
    }
    Phase lameDuck = phases.get(0);
    text.append(lameDuck.failed() == 0
        ? String.format(Locale.ROOT, "result: every task restarted under load with lame duck, and no call failed (0 of %,d)",
            lameDuck.calls())
        : String.format(Locale.ROOT, "result: %,d of %,d calls failed with lame duck (expected: 0): %s",
            lameDuck.failed(), lameDuck.calls(), lameDuck.failures()));
    if (phases.size() > 1) {
      Phase plain = phases.get(1);
      text.append(String.format(Locale.ROOT, "; without it, %,d of %,d failed", plain.failed(), plain.calls()));
    }
    return text.toString();
  }

  private RollingRestart() {}
}
