/**
 * A minimal gRPC client and server with Ballast, written as an application would write them: the
 * server with {@code BallastServer}, the client with the {@code ballast} policy in its service
 * config, a static resolver that names each task, a small fleet and a rolling restart. Never
 * deployed.
 */
package dev.ballast.examples;
