/**
 * Time as Ballast reads it: {@link dev.ballast.time.NanoClock}, the monotonic nanosecond clock
 * that every time-dependent class in every module takes, so that the simulator and tests run the
 * real classes in virtual time and nothing sleeps. {@code NanoClock.system()} is the exact clock,
 * {@code NanoClock.cached()} the millisecond clock of the production balancers.
 */
package dev.ballast.time;
