/**
 * Which backends each client connects to: {@link dev.ballast.subset.Subsetter}'s algorithms
 * (random, deterministic, rendezvous, orthogonal lots), pure functions of the backend list, the
 * client's {@link dev.ballast.subset.ClientIdentity} and the subset size, and {@link
 * dev.ballast.subset.SubsetAnalysis} to measure their balance and churn. Deterministic subsetting's
 * shuffle is a specified algorithm with test vectors, so that clients in other languages compute
 * the same subsets.
 */
package dev.ballast.subset;
