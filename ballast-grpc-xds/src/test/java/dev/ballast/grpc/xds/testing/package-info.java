/**
 * Test fixtures for xDS, shared with the loopback measurements of ballast-benchmarks and the
 * {@code examples/run xds} example: an xDS management server built on envoyproxy's
 * java-control-plane, and the resources a control plane serves to proxyless gRPC clients.
 */
package dev.ballast.grpc.xds.testing;
