/**
 * Test fixtures every module's tests use, shipped in ballast-core's test-jar: seeded property
 * checks ({@code PropertyCheck}, {@code RandomInputs}), virtual time ({@code FakeClock} and the
 * {@code FakeScheduler} on it) and {@code CapturedLog}. Fixtures that need gRPC live in
 * ballast-grpc's test-jar, {@code dev.ballast.grpc.testing}.
 */
package dev.ballast.testing;
