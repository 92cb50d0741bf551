/**
 * Overload protection around the pick, on both sides of the wire, in one vocabulary: request
 * {@link dev.ballast.overload.Criticality}, the client's {@link dev.ballast.overload.AdaptiveThrottle},
 * {@link dev.ballast.overload.RetryBudget} and {@link dev.ballast.overload.RetryPolicy}, the
 * server's {@link dev.ballast.overload.AdmissionLimiter}, {@link dev.ballast.overload.TokenBucket}
 * and deadline checks. Each class takes its clock and randomness, and is fed by the same outcome
 * calls the policies get; transports and the simulator wrap these classes, never copy them.
 */
package dev.ballast.overload;
