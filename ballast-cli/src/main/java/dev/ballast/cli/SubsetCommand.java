package dev.ballast.cli;

import dev.ballast.subset.SubsetAnalysis;
import dev.ballast.subset.SubsetReport;
import dev.ballast.subset.Subsetter;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ballast subset}: connection balance, churn and diversity of subsetting algorithms. */
@Command(
    name = "subset",
    mixinStandardHelpOptions = true,
    versionProvider = BallastVersion.class,
    description = {
      "Measures a subsetting algorithm: connections per backend, churn after one change, diversity.",
      "Backends are numbered 0..N-1; removing a backend removes the highest-numbered one.",
      "Limits: C and N up to 100000, C x K up to 2000000 connections (fits a 256 MB heap)."
    })
final class SubsetCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--algorithm",
      paramLabel = "NAME",
      defaultValue = "orthogonal_lots",
      description = "random, deterministic, rendezvous or orthogonal_lots (default: ${DEFAULT-VALUE}).")
  String algorithm;

  @Option(names = "--clients", paramLabel = "C", defaultValue = "300", description = "Number of clients, 1..100000 (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--backends", paramLabel = "N", defaultValue = "300", description = "Number of backends, 1..100000 (default: ${DEFAULT-VALUE}).")
  int backends;

  @Option(names = "--subset-size", paramLabel = "K", defaultValue = "30", description = "Backends per client, 1..N and C x K at most 2000000 (default: ${DEFAULT-VALUE}).")
  int subsetSize;

  @Option(names = "--compare", description = "Measure every algorithm, side by side.")
  boolean compare;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--assignments", description = "Also print every client's backends (JSON key \"assignments\").")
  boolean assignments;

  @Option(names = "--salt", paramLabel = "S", defaultValue = "0", description = "Service-wide seed of the algorithms (default: ${DEFAULT-VALUE}).")
  long salt;

  @Option(
      names = "--seeds",
      paramLabel = "S",
      defaultValue = "1",
      description = "Also average min/mean and max/mean connections over salts 0..S-1 (default: ${DEFAULT-VALUE}).")
  int seeds;

  @Option(
      names = "--lot-size",
      paramLabel = "M",
      defaultValue = "0",
      description = "orthogonal_lots only: pin the subsets per lot (default: 0, automatic round(N/K)).")
  int lotSize;

  @Override
  public Integer call() {
    validate();
    List<String> names = compare ? Subsetter.NAMES : List.of(algorithm);
    List<SubsetReport> reports = new ArrayList<>();
    List<double[]> averages = new ArrayList<>();
    for (String name : names) {
      reports.add(SubsetAnalysis.analyze(subsetter(name, salt), clients, backends, subsetSize));
      averages.add(seeds > 1 ? averageSpread(name) : null);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (format.equals("json")) {
      out.println(JsonReport.render(reports, averages, seeds, salt, assignments, compare));
    } else {
      out.print(TextReport.render(reports, averages, seeds, salt, assignments));
    }
    out.flush();
    return 0;
  }

  private double[] averageSpread(String name) {
    double minOverMean = 0;
    double maxOverMean = 0;
    for (int s = 0; s < seeds; s++) {
      SubsetReport.Connections c =
          SubsetAnalysis.connections(
              subsetter(name, s).assignAll(dev.ballast.subset.BackendSet.ofCount(backends), clients, subsetSize),
              backends);
      minOverMean += c.minOverMean();
      maxOverMean += c.maxOverMean();
    }
    return new double[] {minOverMean / seeds, maxOverMean / seeds};
  }

  private Subsetter subsetter(String name, long salt) {
    if (lotSize > 0 && name.equals("orthogonal_lots")) {
      return Subsetter.orthogonalLots(salt, lotSize);
    }
    return Subsetter.byName(name, salt);
  }

  private void validate() {
    CommandLine cl = spec.commandLine();
    // Checked with --compare too: a misspelt name is an error, not silently ignored.
    if (!Subsetter.NAMES.contains(algorithm)) {
      throw new CommandLine.ParameterException(
          cl, "--algorithm: '" + algorithm + "' (expected: one of " + String.join(", ", Subsetter.NAMES) + ")");
    }
    if (compare && cl.getParseResult().hasMatchedOption("--algorithm")) {
      throw new CommandLine.ParameterException(
          cl, "--algorithm: '" + algorithm + "' with --compare (expected: one of the two; --compare measures every algorithm)");
    }
    // Limits keep the largest run within a small default heap (docs/subsetting.md, Limits).
    if (clients < 1 || clients > SubsetAnalysis.MAX_CLIENTS) {
      throw new CommandLine.ParameterException(
          cl, "--clients: " + clients + " (expected: 1.." + SubsetAnalysis.MAX_CLIENTS + ")");
    }
    if (backends < 1 || backends > SubsetAnalysis.MAX_BACKENDS) {
      throw new CommandLine.ParameterException(
          cl, "--backends: " + backends + " (expected: 1.." + SubsetAnalysis.MAX_BACKENDS + ")");
    }
    if (subsetSize < 1 || subsetSize > backends) {
      throw new CommandLine.ParameterException(
          cl,
          "--subset-size: " + subsetSize + ifDefault("--subset-size") + " (expected: 1.." + backends
              + ", the number of backends" + (given("--backends") ? "" : ", --backends " + backends + " (the default)") + ")");
    }
    if ((long) clients * subsetSize > SubsetAnalysis.MAX_CONNECTIONS) {
      throw new CommandLine.ParameterException(
          cl,
          "--subset-size: " + subsetSize + ifDefault("--subset-size") + " (expected: 1.." + SubsetAnalysis.maxSubsetSize(clients)
              + " for " + clients + ifDefault("--clients") + " clients: at most " + SubsetAnalysis.MAX_CONNECTIONS + " connections)");
    }
    if (!format.equals("text") && !format.equals("json")) {
      throw new CommandLine.ParameterException(cl, "--format: '" + format + "' (expected: text or json)");
    }
    if (lotSize < 0) {
      throw new CommandLine.ParameterException(cl, "--lot-size: " + lotSize + " (expected: 0 for automatic, or 1 or more)");
    }
    if (lotSize > 0 && !compare && !algorithm.equals("orthogonal_lots")) {
      throw new CommandLine.ParameterException(
          cl, "--lot-size: " + lotSize + " (expected: 0 for " + algorithm + "; a lot size applies to orthogonal_lots only)");
    }
    if (seeds < 1 || seeds > 10_000) {
      throw new CommandLine.ParameterException(cl, "--seeds: " + seeds + " (expected: 1..10000)");
    }
  }

  private boolean given(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  /** Marks a value the user left at its default, so that an error about it does not read as the user's choice. */
  private String ifDefault(String option) {
    return given(option) ? "" : " (the default)";
  }
}
