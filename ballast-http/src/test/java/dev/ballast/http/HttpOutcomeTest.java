package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.overload.AnswerKind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

final class HttpOutcomeTest {
  private static HeaderLookup headers(Map<String, String> values) {
    return values::get;
  }

  @Test
  void statusesAndMarksAreClassified() {
    assertThat(HttpOutcome.ofResponse(200, HeaderLookup.NONE)).isEqualTo(HttpOutcome.SUCCESS);
    assertThat(HttpOutcome.ofResponse(304, HeaderLookup.NONE)).isEqualTo(HttpOutcome.SUCCESS);
    assertThat(HttpOutcome.ofResponse(404, HeaderLookup.NONE)).isEqualTo(HttpOutcome.CLIENT_ERROR);
    assertThat(HttpOutcome.ofResponse(429, HeaderLookup.NONE)).isEqualTo(HttpOutcome.OVERLOADED_DONT_RETRY);
    assertThat(HttpOutcome.ofResponse(500, HeaderLookup.NONE)).isEqualTo(HttpOutcome.SERVER_ERROR);
    assertThat(HttpOutcome.ofResponse(503, HeaderLookup.NONE)).isEqualTo(HttpOutcome.UNAVAILABLE);
    assertThat(HttpOutcome.ofResponse(502, HeaderLookup.NONE)).isEqualTo(HttpOutcome.UNAVAILABLE);
    assertThat(HttpOutcome.ofResponse(504, HeaderLookup.NONE)).isEqualTo(HttpOutcome.SERVER_ERROR);
    assertThat(HttpOutcome.ofResponse(503, headers(Map.of("ballast-overload", "shed")))).isEqualTo(HttpOutcome.OVERLOADED);
    assertThat(HttpOutcome.ofResponse(429, headers(Map.of("ballast-overload", "shed")))).isEqualTo(HttpOutcome.OVERLOADED);
    assertThat(HttpOutcome.ofResponse(503, headers(Map.of("ballast-overload", "dont-retry"))))
        .isEqualTo(HttpOutcome.OVERLOADED_DONT_RETRY);
    assertThat(HttpOutcome.ofResponse(504, headers(Map.of("ballast-deadline", "exceeded")))).isEqualTo(HttpOutcome.CANCELLED);
    // An unknown mark is no mark.
    assertThat(HttpOutcome.ofResponse(503, headers(Map.of("ballast-overload", "SHED!")))).isEqualTo(HttpOutcome.UNAVAILABLE);
  }

  @Test
  void exceptionsAreClassifiedThroughTheirWrappers() {
    assertThat(HttpOutcome.ofException(new ConnectException("refused"))).isEqualTo(HttpOutcome.CONNECT_FAILED);
    assertThat(HttpOutcome.ofException(new CompletionException(new ConnectException()))).isEqualTo(HttpOutcome.CONNECT_FAILED);
    assertThat(HttpOutcome.ofException(new HttpConnectTimeoutException("slow"))).isEqualTo(HttpOutcome.CONNECT_FAILED);
    assertThat(HttpOutcome.ofException(new IOException("x", new ConnectException()))).isEqualTo(HttpOutcome.CONNECT_FAILED);
    assertThat(HttpOutcome.ofException(new HttpTimeoutException("deadline"))).isEqualTo(HttpOutcome.CANCELLED);
    assertThat(HttpOutcome.ofException(new CancellationException())).isEqualTo(HttpOutcome.CANCELLED);
    assertThat(HttpOutcome.ofException(new IOException("reset"))).isEqualTo(HttpOutcome.NETWORK);
    assertThat(HttpOutcome.ofException(new IllegalStateException("handler"))).isEqualTo(HttpOutcome.LOCAL_FAILURE);
  }

  @Test
  void onlyWhatNeverRanIsRetriedWhateverTheMethod() {
    for (HttpOutcome outcome : HttpOutcome.values()) {
      boolean neverRan = outcome == HttpOutcome.OVERLOADED || outcome == HttpOutcome.CONNECT_FAILED;
      boolean mayHaveRun = outcome == HttpOutcome.NETWORK || outcome == HttpOutcome.UNAVAILABLE;
      assertThat(outcome.mayRetry(false)).as(outcome.name()).isEqualTo(neverRan);
      assertThat(outcome.mayRetry(true)).as(outcome.name()).isEqualTo(neverRan || mayHaveRun);
    }
  }

  @Test
  void overloadAndGivingUpAreNeverTheBackendsFailure() {
    assertThat(HttpOutcome.OVERLOADED.isBackendFailure()).isFalse();
    assertThat(HttpOutcome.OVERLOADED_DONT_RETRY.isBackendFailure()).isFalse();
    assertThat(HttpOutcome.CANCELLED.isBackendFailure()).isFalse();
    assertThat(HttpOutcome.LOCAL_FAILURE.isBackendFailure()).isFalse();
    assertThat(HttpOutcome.OVERLOADED.answerKind()).isEqualTo(AnswerKind.OVERLOADED);
    assertThat(HttpOutcome.OVERLOADED.answerKind().isAccept()).isFalse();
  }
}
