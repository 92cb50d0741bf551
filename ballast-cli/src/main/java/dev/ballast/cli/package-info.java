/**
 * The {@code ballast} command ({@link dev.ballast.cli.BallastCommand}, picocli): {@code subset},
 * {@code sim} and {@code quota-server}. A usage error is one line naming the offending value and
 * what was expected, with exit code 2.
 */
package dev.ballast.cli;
