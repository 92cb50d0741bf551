/**
 * The datacenter simulator: it runs ballast-core's own balancers and overload classes in virtual
 * time, at fleet scale, on scenarios read from HOCON ({@link dev.ballast.sim.ScenarioReader},
 * {@link dev.ballast.sim.Scenario}), and reports what they did ({@link dev.ballast.sim.RunResult},
 * {@link dev.ballast.sim.ReportWriter}). {@link dev.ballast.sim.SuiteRunner} runs a suite such as
 * {@link dev.ballast.sim.ShippedSuite}; a {@link dev.ballast.sim.PolicyAdapter} per policy, listed
 * in {@link dev.ballast.sim.PolicyRegistry}, wraps a core policy and never re-implements it.
 *
 * <p>The simulator's supported interface is the {@code ballast sim} command and its scenario files;
 * its Java API is {@link dev.ballast.annotation.Experimental}: it changes as the model grows (new
 * faults, metrics and report columns), so every public type here may change in a minor release.
 */
@Experimental
package dev.ballast.sim;

import dev.ballast.annotation.Experimental;
