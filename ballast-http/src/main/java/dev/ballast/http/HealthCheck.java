package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * How a client checks one backend, asynchronously: an HTTP request on a health path (the JDK
 * client's is {@link BallastHttpClient.Builder#healthCheckPath}), or, without one, a TCP connect
 * ({@link #tcpConnect(Duration)}) that tells a listening backend from a refusing one.
 */
@Experimental
@FunctionalInterface
public interface HealthCheck {

  /** What a check found. */
  enum Answer {
    /** The backend serves: 2xx on the health path, or a connection accepted. */
    SERVING,
    /** The backend listens but asks for no new requests: 503 on the health path (lame duck). */
    NOT_SERVING,
    /** The backend has no health path (404, 405, 501): being reachable is all it can tell. */
    NO_HEALTH_SERVICE,
    /** No connection could be made. */
    CONNECT_FAILED,
    /** Anything else: a timeout, another status. Changes nothing. */
    UNKNOWN
  }

  /**
   * Checks a backend; the future must complete (with UNKNOWN at worst), never hang.
   *
   * @param endpoint the backend
   * @return what the check found
   */
  CompletableFuture<Answer> check(HttpEndpoint endpoint);

  /**
   * Reads the answer to an HTTP health check from its status.
   *
   * @param status the health path's status
   * @return the answer
   */
  static Answer ofStatus(int status) {
    if (status >= 200 && status < 300) {
      return Answer.SERVING;
    }
    if (status == 503) {
      return Answer.NOT_SERVING;
    }
    return status == 404 || status == 405 || status == 501 ? Answer.NO_HEALTH_SERVICE : Answer.UNKNOWN;
  }

  /**
   * A check that opens a TCP connection to the backend's host and port and closes it at once:
   * SERVING if it was accepted, CONNECT_FAILED if refused or unreachable, UNKNOWN after {@code
   * timeout}. It uses the JDK's asynchronous channels, no thread per check.
   *
   * @param timeout how long a connection may take
   * @return the check
   */
  static HealthCheck tcpConnect(Duration timeout) {
    long nanos = timeout.toNanos();
    ScheduledExecutorService timer = SharedTimer.get();
    return endpoint -> {
      CompletableFuture<Answer> answer = new CompletableFuture<>();
      URI uri = endpoint.baseUri();
      int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
      AsynchronousSocketChannel channel;
      try {
        channel = AsynchronousSocketChannel.open();
        InetSocketAddress address = new InetSocketAddress(uri.getHost(), port);
        if (address.isUnresolved()) {
          channel.close();
          return CompletableFuture.completedFuture(Answer.CONNECT_FAILED);
        }
        channel.connect(address, null, new CompletionHandler<Void, Void>() {
          @Override
          public void completed(Void result, Void attachment) {
            answer.complete(Answer.SERVING);
          }

          @Override
          public void failed(Throwable failure, Void attachment) {
            answer.complete(HttpOutcome.ofException(failure) == HttpOutcome.CONNECT_FAILED
                || failure instanceof java.io.IOException ? Answer.CONNECT_FAILED : Answer.UNKNOWN);
          }
        });
      } catch (java.io.IOException | RuntimeException e) {
        return CompletableFuture.completedFuture(Answer.UNKNOWN);
      }
      timer.schedule(() -> answer.complete(Answer.UNKNOWN), nanos, TimeUnit.NANOSECONDS);
      AsynchronousSocketChannel opened = channel;
      return answer.whenComplete((a, e) -> {
        try {
          opened.close();
        } catch (java.io.IOException ignored) {
          // Closing a probe's socket can only fail if it is gone already.
        }
      });
    };
  }
}
