/**
 * The quota service's wire format, {@code ballast.quota.v1}: its messages and gRPC stubs, generated
 * at build time from {@code ballast/quota/v1/quota.proto} (protoc and gRPC-Java's code generator),
 * so that clients in other languages are generated from the same file. Nothing in this package is
 * written by hand but this description; the bounds on the values a message may carry are checked
 * by {@link dev.ballast.quota.QuotaMessages} where a message is received.
 */
package dev.ballast.quota.v1;
