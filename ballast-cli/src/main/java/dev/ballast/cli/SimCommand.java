package dev.ballast.cli;

import dev.ballast.sim.ShippedSuite;
import dev.ballast.sim.PolicyRegistry;
import dev.ballast.sim.Progress;
import dev.ballast.sim.ReportWriter;
import dev.ballast.sim.RunResult;
import dev.ballast.sim.Scenario;
import dev.ballast.sim.ScenarioException;
import dev.ballast.sim.ScenarioReader;
import dev.ballast.sim.SuiteRunner;
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
      // One string per paragraph: picocli wraps each on its own, so a line break here would show.
      "Without --scenario, runs the suite (the chapter's, overload, outlier ejection and zone scenarios), one seed"
          + " each (--full: every seed), and writes the report to " + SimCommand.DEFAULT_OUT + "."
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

  @Option(names = "--full", description = "Run the suite with every scenario's own seeds (3 for the overload and zone scenarios) instead of one seed each.")
  boolean full;

  @Option(names = "--wide", description = "Print every column in one table (summary.csv always has them all).")
  boolean wide;

  /** Lines of --list wrap here. */
  static final int LIST_WIDTH = 100;

  /**
   * What the start-up estimate assumes a run of up to {@link #SMALL_FLEET} backends simulates per
   * CPU-second: below the 2.3 to 2.8 million the suite measures (docs/benchmarks.md), so that the
   * estimate errs long.
   */
  static final double ASSUMED_REQUESTS_PER_CPU_SECOND = 2e6;

  /**
   * The same for a larger fleet, whose requests miss the caches more: below the 0.44 million that
   * large-fleet (10,000 backends) measures. Fleets larger still are slower again; the estimate
   * then says "at least".
   */
  static final double ASSUMED_LARGE_FLEET_REQUESTS_PER_CPU_SECOND = 4e5;

  /** Up to this many backends a fleet is small for the estimate. */
  static final int SMALL_FLEET = 1_000;

  /** The largest fleet whose speed has been measured (large-fleet). */
  static final int MEASURED_FLEET = 10_000;

  /** Runs expected to take longer than this say so before they start. */
  static final double LONG_RUN_SECONDS = 60;

  static final class PolicyNames extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    PolicyNames() {
      super(PolicyRegistry.names());
    }
  }

  @Override
  public Integer call() {
    PrintWriter stdout = spec.commandLine().getOut();
    // An option the chosen mode would ignore is an error, not dropped without a word.
    if (list) {
      for (String option : List.of("--scenario", "--policy", "--out", "--seeds", "--threads", "--full", "--wide")) {
        if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
          throw usage("--list: with " + option + " (expected: --list alone; it lists the built-in scenarios and policies and runs nothing)");
        }
      }
    }
    if (full && !scenarios.isEmpty()) {
      throw usage("--full: with --scenario '" + scenarios.get(0) + "' (expected: one of the two; --full runs the whole suite at"
          + " every scenario's own seeds, --scenario runs a scenario as its file sets it)");
    }
    if (list) {
      stdout.print(listing());
      stdout.flush();
      return 0;
    }
    // The scenario reader's own rules, so that a policy or a seed count reads the same wherever it is given.
    for (int i = 0; i < policies.size(); i++) {
      String expected = ScenarioReader.expectedOfPolicy(policies, i);
      if (expected != null) {
        throw usage("--policy: '" + policies.get(i) + "' (expected: " + expected + ")");
      }
    }
    if (seeds != null && (seeds < 1 || seeds > ScenarioReader.MAX_SEEDS)) {
      throw usage("--seeds: " + seeds + " (expected: 1.." + ScenarioReader.MAX_SEEDS + ")");
    }
    int workers = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
    if (workers < 1 || workers > 1024) {
      throw usage("--threads: " + workers + " (expected: 1..1024)");
    }
    List<Scenario> toRun = new ArrayList<>();
    try {
      if (scenarios.isEmpty()) {
        toRun.addAll(full ? ShippedSuite.load() : ShippedSuite.loadDefault());
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

    warnIfLong(adjusted, workers);
    Progress progress = new Progress();
    long start = System.nanoTime();
    List<SuiteRunner.ScenarioResult> results;
    ProgressLine line = ProgressLine.start(progress, spec.commandLine().getErr(), System.console() != null);
    try (line) {
      results = SuiteRunner.runAll(adjusted, workers, progress);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    List<RunResult> runs = results.stream().flatMap(r -> r.policies().stream()).flatMap(p -> p.runs().stream()).toList();
    long requests = runs.stream().mapToLong(RunResult::requestsIssued).sum();
    double cpuSeconds = runs.stream().mapToLong(RunResult::cpuNanos).sum() / 1e9;
    stdout.print(wide ? SummaryTable.renderWide(results) : SummaryTable.render(results));
    stdout.printf(Locale.ROOT, "%d %s: %,d simulated requests in %.1f s on %d %s (%.2f million/s; %.2f million per CPU-second)%n",
        runs.size(), runs.size() == 1 ? "run" : "runs", requests, seconds, workers, workers == 1 ? "thread" : "threads",
        requests / seconds / 1e6, requests / cpuSeconds / 1e6);
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
    if (ShippedSuite.NAMES.contains(name) || ShippedSuite.EXTRA.contains(name)) {
      return ScenarioReader.readBuiltIn(name);
    }
    // The built-in names are many; --list shows them, and this line stays one a terminal can show.
    throw usage("--scenario: '" + name + "': not found (expected: a scenario file, or a built-in scenario's name;"
        + " ballast sim --list lists them)");
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /** Built-in scenarios with their titles, and the policies, wrapped at {@value #LIST_WIDTH} columns. */
  static String listing() {
    StringBuilder out = new StringBuilder("Scenarios of the suite (ballast sim):\n");
    listScenarios(out, ShippedSuite.NAMES);
    out.append("Built-in scenarios outside the suite (ballast sim --scenario NAME):\n");
    listScenarios(out, ShippedSuite.EXTRA);
    out.append("Policies (--policy):\n");
    wrapList(out, String.join(", ", PolicyRegistry.names()), "  ");
    return out.toString();
  }

  private static void listScenarios(StringBuilder out, List<String> names) {
    int width = names.stream().mapToInt(String::length).max().orElse(0);
    String indent = " ".repeat(2 + width + 2);
    for (String name : names) {
      String title = ScenarioReader.readBuiltIn(name).title();
      wrapList(out, "  " + name + " ".repeat(width - name.length()) + "  " + title, indent);
    }
  }

  /** Appends {@code text} broken at spaces into lines of at most {@value #LIST_WIDTH} characters. */
  private static void wrapList(StringBuilder out, String text, String indent) {
    String rest = text.startsWith(" ") ? text : indent + text;
    while (rest.length() > LIST_WIDTH) {
      int cut = rest.lastIndexOf(' ', LIST_WIDTH);
      if (cut <= indent.length()) {
        cut = LIST_WIDTH;
      }
      out.append(rest, 0, cut).append('\n');
      rest = indent + rest.substring(cut).stripLeading();
    }
    out.append(rest).append('\n');
  }

  /**
   * Says before the runs start when they will take long (a fleet of a million backends, say):
   * how many requests, and about how long at a conservative speed per core.
   */
  /** How many runs and requests a command will simulate, and about how long that takes. */
  record Estimate(int runs, double requests, long backends, double seconds) {
    static Estimate of(List<Scenario> toRun, int workers) {
      double requests = 0;
      double cpuSeconds = 0;
      int runs = 0;
      long backends = 0;
      for (Scenario scenario : toRun) {
        int n = scenario.labelledRuns().size() * scenario.seeds();
        runs += n;
        double expected = n * scenario.expectedRequests();
        requests += expected;
        cpuSeconds += expected / assumedRequestsPerCpuSecond(scenario.fleet().backends());
        backends = Math.max(backends, scenario.fleet().backends());
      }
      return new Estimate(runs, requests, backends, cpuSeconds / Math.max(1, Math.min(workers, runs)));
    }

    String warning() {
      return String.format(Locale.ROOT,
          "ballast sim: %d run%s of about %s requests in all (up to %,d backends); this may take %s%s",
          runs, runs == 1 ? "" : "s", ProgressLine.millions(requests), backends,
          backends > MEASURED_FLEET ? "at least " : "", ProgressLine.roughly(seconds));
    }
  }

  static double assumedRequestsPerCpuSecond(long backends) {
    return backends <= SMALL_FLEET ? ASSUMED_REQUESTS_PER_CPU_SECOND : ASSUMED_LARGE_FLEET_REQUESTS_PER_CPU_SECOND;
  }

  private void warnIfLong(List<Scenario> toRun, int workers) {
    Estimate estimate = Estimate.of(toRun, workers);
    if (estimate.seconds() > LONG_RUN_SECONDS) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(estimate.warning());
      err.flush();
    }
  }



}
