/**
 * A picking policy of one's own, {@code primary_first}, as a team would write one against Ballast's
 * extension point: the policy ({@code CustomPolicy}), its settings declared once, and its provider,
 * registered in {@code META-INF/services/dev.ballast.pick.PolicyProvider} so that a service config,
 * an xDS cluster and a simulator scenario select it by name. It needs ballast-core only.
 */
package dev.ballast.examples.policy;
