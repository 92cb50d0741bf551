package dev.ballast.cli;

import dev.ballast.sim.ChapterSuite;
import dev.ballast.sim.PolicyRegistry;
import dev.ballast.sim.ReportWriter;
import dev.ballast.sim.RunResult;
import dev.ballast.sim.Scenario;
import dev.ballast.sim.ScenarioException;
import dev.ballast.sim.ScenarioReader;
import dev.ballast.sim.Simulator;
import dev.ballast.sim.SummaryTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ballast sim}: runs the datacenter simulator over ballast-core's real policies. */
@Command(
    name = "sim",
    mixinStandardHelpOptions = true,
    versionProvider = BallastVersion.class,
    description = {
      "Simulates a datacenter in virtual time with ballast-core's own subsetting, health and policies.",
      "Without --scenario, runs the chapter suite and writes the report to " + SimCommand.DEFAULT_OUT + "."
    })
final class SimCommand implements Callable<Integer> {
  static final String DEFAULT_OUT = "ballast-sim-report";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--scenario",
      paramLabel = "FILE",
      description = "A scenario file (HOCON, see docs/simulation.md), or a built-in scenario's name; repeatable.")
  List<String> scenarios = new ArrayList<>();

  @Option(
      names = "--policy",
      paramLabel = "NAME",
      split = ",",
      description = "Policies to run instead of the scenario's own, comma-separated: ${COMPLETION-CANDIDATES}.",
      completionCandidates = PolicyNames.class)
  List<String> policies = new ArrayList<>();

  @Option(names = "--out", paramLabel = "DIR", description = "Write CSV, PNG charts and index.html here (default without --scenario: " + DEFAULT_OUT + ").")
  Path out;

  @Option(names = "--seeds", paramLabel = "N", description = "Runs per policy with consecutive seeds, averaged (default: the scenario's).")
  Integer seeds;

  @Option(names = "--threads", paramLabel = "N", description = "Worker threads for independent runs (default: the number of cores).")
  Integer threads;

  @Option(names = "--list", description = "List the built-in scenarios and policies.")
  boolean list;

  static final class PolicyNames extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    PolicyNames() {
      super(PolicyRegistry.names());
    }
  }

  @Override
  public Integer call() {
    PrintWriter stdout = spec.commandLine().getOut();
    if (list) {
      stdout.println("scenarios (chapter suite): " + String.join(", ", ChapterSuite.NAMES));
      stdout.println("scenarios (extra): " + String.join(", ", ChapterSuite.EXTRA));
      stdout.println("policies: " + String.join(", ", PolicyRegistry.names()));
      return 0;
    }
    for (int i = 0; i < policies.size(); i++) {
      String policy = policies.get(i);
      if (!PolicyRegistry.names().contains(policy)) {
        throw usage("--policy: '" + policy + "' (expected: one of " + String.join(", ", PolicyRegistry.names()) + ")");
      }
      if (policies.subList(0, i).contains(policy)) {
        throw usage("--policy: '" + policy + "' (expected: each policy at most once)");
      }
    }
    if (seeds != null && (seeds < 1 || seeds > 1000)) {
      throw usage("--seeds: " + seeds + " (expected: 1..1000)");
    }
    int workers = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
    if (workers < 1 || workers > 1024) {
      throw usage("--threads: " + workers + " (expected: 1..1024)");
    }
    List<Scenario> toRun = new ArrayList<>();
    try {
      if (scenarios.isEmpty()) {
        toRun.addAll(ChapterSuite.load());
      } else {
        for (String scenario : scenarios) {
          Scenario loaded = load(scenario);
          for (Scenario earlier : toRun) {
            if (earlier.name().equals(loaded.name())) {
              // The table's rows and the report's folders are named by scenario.
              throw usage("--scenario: '" + scenario + "' (expected: a scenario named differently from the others; "
                  + earlier.source() + " is also named " + loaded.name() + ")");
            }
          }
          toRun.add(loaded);
        }
      }
    } catch (ScenarioException e) {
      throw usage(e.getMessage());
    }
    List<Scenario> adjusted = new ArrayList<>();
    for (Scenario scenario : toRun) {
      Scenario s = policies.isEmpty() ? scenario : scenario.withPolicies(policies);
      adjusted.add(seeds == null ? s : s.withSeeds(seeds));
    }
    Path target = out != null ? out : scenarios.isEmpty() ? Path.of(DEFAULT_OUT) : null;
    if (target != null) {
      requireWritableDirectory(target);
    }

    Simulator.Progress progress = new Simulator.Progress();
    ScheduledExecutorService bar = startProgressBar(progress);
    List<Simulator.ScenarioResult> results;
    long start = System.nanoTime();
    try {
      results = Simulator.runAll(adjusted, workers, progress);
    } finally {
      bar.shutdownNow();
      clearProgress();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    List<RunResult> runs = results.stream().flatMap(r -> r.policies().stream()).flatMap(p -> p.runs().stream()).toList();
    long requests = runs.stream().mapToLong(RunResult::requestsIssued).sum();
    double cpuSeconds = runs.stream().mapToLong(RunResult::cpuNanos).sum() / 1e9;
    stdout.print(SummaryTable.render(results));
    stdout.printf(Locale.ROOT,
        "%d runs, %,d simulated requests in %.1f s on %d threads: %.2f million requests/s, %.2f million per CPU-second of the runs%n",
        progress.runs(), requests, seconds, workers, requests / seconds / 1e6, requests / cpuSeconds / 1e6);
    if (target != null) {
      ReportWriter.write(target, results);
      stdout.println("report: " + target.resolve("index.html"));
    }
    stdout.flush();
    return 0;
  }

  /** Makes the report's directory now, so that a path where none can be written fails before the runs, not after. */
  private void requireWritableDirectory(Path dir) {
    String problem;
    try {
      Files.createDirectories(dir);
      problem = Files.isWritable(dir) ? null : "not writable";
    } catch (IOException | SecurityException e) {
      problem = e instanceof FileAlreadyExistsException ? "not a directory" : "cannot be made: " + e.getMessage();
    }
    if (problem != null) {
      throw usage("--out: '" + dir + "' " + problem + " (expected: a writable directory, or a path where one can be made)");
    }
  }

  /** A file of that name, else the built-in scenario of that name. */
  private Scenario load(String name) {
    Path path = Path.of(name);
    if (Files.exists(path)) {
      return ScenarioReader.read(path);
    }
    if (ChapterSuite.NAMES.contains(name) || ChapterSuite.EXTRA.contains(name)) {
      return ScenarioReader.readBuiltIn(name);
    }
    // The built-in names are many; --list shows them, and this line stays one a terminal can show.
    throw usage("--scenario: '" + name + "': not found (expected: a scenario file, or a built-in scenario's name;"
        + " ballast sim --list lists them)");
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /** A bar on the terminal's stderr once the runs have taken more than a second; nothing when piped. */
  private ScheduledExecutorService startProgressBar(Simulator.Progress progress) {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "ballast-sim-progress");
      thread.setDaemon(true);
      return thread;
    });
    if (System.console() != null) {
      timer.scheduleAtFixedRate(() -> {
        double fraction = progress.fraction();
        int filled = (int) (fraction * 40);
        System.err.printf(Locale.ROOT, "\r[%s%s] %3.0f%%  %d/%d runs", "#".repeat(filled), " ".repeat(40 - filled),
            100 * fraction, progress.finishedRuns(), progress.runs());
        System.err.flush();
      }, 1, 1, TimeUnit.SECONDS);
    }
    return timer;
  }

  private static void clearProgress() {
    if (System.console() != null) {
      System.err.print("\r" + " ".repeat(70) + "\r");
      System.err.flush();
    }
  }
}
