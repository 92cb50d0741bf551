package dev.ballast.grpc;

import dev.ballast.overload.AnswerKind;
import io.grpc.Metadata;
import io.grpc.Status;

/**
 * How a Ballast server says "overloaded" on the wire, distinctly from other errors: status
 * RESOURCE_EXHAUSTED with the trailer {@code ballast-overload}. Its value {@code shed} means this
 * server shed the request without running it, and another backend may take it; {@code dont-retry}
 * means a service behind this server shed it and was retried there already, so nobody should retry
 * it again. A {@code dont-retry} answer also carries {@code grpc-retry-pushback-ms: -1}, which
 * stops gRPC's own retries (gRFC A6: a negative pushback means do not retry).
 */
final class OverloadSignal {
  private OverloadSignal() {}

  static final Metadata.Key<String> TRAILER = Metadata.Key.of("ballast-overload", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);
  static final String SHED = "shed";
  static final String DONT_RETRY = "dont-retry";

  /** What an answer's status and trailers say, for the throttle and for retries. */
  static AnswerKind kind(Status.Code code, String overload) {
    if (code == Status.Code.OK) {
      return AnswerKind.SUCCESS;
    }
    if (code == Status.Code.RESOURCE_EXHAUSTED && overload != null) {
      return overload.equals(SHED) ? AnswerKind.OVERLOADED : AnswerKind.OVERLOADED_DONT_RETRY;
    }
    if (code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED) {
      return AnswerKind.DEADLINE_EXCEEDED;
    }
    return code == Status.Code.UNAVAILABLE ? AnswerKind.NETWORK : AnswerKind.ERROR;
  }
}
