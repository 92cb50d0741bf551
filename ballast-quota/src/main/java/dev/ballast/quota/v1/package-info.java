/**
 * The quota service's wire format, {@code ballast.quota.v1}: its messages ({@link
 * dev.ballast.quota.v1.QuotaProto}) and methods ({@link dev.ballast.quota.v1.QuotaGrpc}), named as
 * protoc and its gRPC plugin would name them, so that clients in other languages can be generated
 * from the same proto file.
 */
package dev.ballast.quota.v1;
