/**
 * The datacenter simulator: it runs ballast-core's own balancers and overload classes in virtual
 * time, at fleet scale, on scenarios read from HOCON ({@link dev.ballast.sim.ScenarioReader},
 * {@link dev.ballast.sim.Scenario}), and reports what they did ({@link dev.ballast.sim.RunResult},
 * {@link dev.ballast.sim.ReportWriter}). {@link dev.ballast.sim.SuiteRunner} runs a suite such as
 * {@link dev.ballast.sim.ShippedSuite}; a {@link dev.ballast.sim.PolicyAdapter} per policy, listed
 * in {@link dev.ballast.sim.PolicyRegistry}, wraps a core policy and never re-implements it.
 */
package dev.ballast.sim;
