/**
 * Ballast under an xDS control plane (gRFC A52). A Cluster selects the {@code ballast} policy with
 * a TypedStruct whose {@code type_url} is {@link dev.ballast.grpc.xds.BallastXds#TYPE_URL}; gRPC
 * hands the TypedStruct's Struct to the policy as a service config's JSON, which ballast-grpc's
 * parser reads. This module adds grpc-xds to ballast-grpc; {@code docs/xds.md} shows the Cluster
 * and what each level of gRPC's xDS policies decides.
 */
package dev.ballast.grpc.xds;
