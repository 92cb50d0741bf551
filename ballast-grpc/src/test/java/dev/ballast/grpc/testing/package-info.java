/**
 * Test fixtures for code that talks gRPC, shipped in ballast-grpc's test-jar for every module's
 * tests and for the loopback measurements: {@code StaticResolverProvider} (a fleet of loopback or
 * in-process servers as one target), {@code ByteMarshaller} (raw bytes as messages, for services
 * written without protoc) and {@code TestCertificates} (TLS certificates made at test time).
 */
package dev.ballast.grpc.testing;
