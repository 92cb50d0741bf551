package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs scenarios: every (scenario, policy, seed) is an independent single-threaded {@link Simulation}, and
 * the runs share a bounded pool of worker threads, one per core by default. Results do not depend
 * on the number of threads.
 */
@Experimental
public final class SuiteRunner {
  private SuiteRunner() {}

  /**
   * One policy's runs of one scenario (or of one of its variants, {@code policy} then being its
   * label {@code POLICY@VARIANT}): the first seed's full result and the seeds' mean summary; with
   * onset shifts, {@code runs} holds each seed's runs with every shift in turn.
   */
  public record PolicyResult(String policy, RunResult.Summary summary, RunResult firstRun, List<RunResult> runs) {}

  /**
   * One scenario's runs: each policy's, variants included, in report order.
   *
   * @param scenario the scenario
   * @param policies each policy's result
   */
  public record ScenarioResult(Scenario scenario, List<PolicyResult> policies) {}

  /**
   * One run, on the calling thread.
   *
   * @param scenario the scenario
   * @param policy the policy, by registry name
   * @param seed the run's seed
   * @return the run's result
   */
  public static RunResult run(Scenario scenario, String policy, long seed) {
    return new Simulation(scenario, policy, seed, Progress.untracked(scenario)).run();
  }

  /**
   * Every scenario x policy x seed on {@code threads} workers, with progress kept but not shown.
   *
   * @param scenarios the scenarios
   * @param threads how many runs at once
   * @return the results, in input order
   */
  public static List<ScenarioResult> runAll(List<Scenario> scenarios, int threads) {
    return runAll(scenarios, threads, new Progress());
  }

  /**
   * Every scenario x policy x seed on {@code threads} workers; results in input order.
   *
   * @param scenarios the scenarios
   * @param threads how many runs at once
   * @param progress what the runs report their progress to
   * @return the results, in input order
   */
  public static List<ScenarioResult> runAll(List<Scenario> scenarios, int threads, Progress progress) {
    ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
      Thread thread = new Thread(runnable, "ballast-sim");
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<List<List<Future<RunResult>>>> futures = new ArrayList<>();
      for (Scenario scenario : scenarios) {
        List<List<Future<RunResult>>> perPolicy = new ArrayList<>();
        for (Scenario.LabelledRun labelled : scenario.labelledRuns()) {
          List<Future<RunResult>> perSeed = new ArrayList<>();
          // Seed by seed, each with every onset shift: run k of one policy pairs with run k of another.
          for (int s = 0; s < scenario.seeds(); s++) {
            long seed = scenario.seed() + s;
            for (long shift : scenario.sweep().shifts()) {
              Scenario shifted = labelled.scenario().withFaultsShifted(shift);
              Progress.Run run = progress.register(shifted);
              perSeed.add(pool.submit(() -> new Simulation(shifted, labelled.policy(), seed, run).run()));
            }
          }
          perPolicy.add(perSeed);
        }
        futures.add(perPolicy);
      }
      List<ScenarioResult> results = new ArrayList<>();
      for (int i = 0; i < scenarios.size(); i++) {
        Scenario scenario = scenarios.get(i);
        List<PolicyResult> policies = new ArrayList<>();
        List<Scenario.LabelledRun> labelled = scenario.labelledRuns();
        for (int p = 0; p < labelled.size(); p++) {
          List<RunResult> runs = new ArrayList<>();
          for (Future<RunResult> future : futures.get(i).get(p)) {
            runs.add(future.get());
          }
          policies.add(new PolicyResult(
              labelled.get(p).label(),
              RunResult.Summary.mean(runs.stream().map(RunResult::summary).toList()),
              runs.get(0),
              runs));
        }
        results.add(new ScenarioResult(scenario, policies));
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(cause);
    } finally {
      pool.shutdownNow();
    }
  }
}
