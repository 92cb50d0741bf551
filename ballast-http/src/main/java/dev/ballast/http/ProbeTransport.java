package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.util.concurrent.CompletableFuture;

/**
 * How a client sends {@code prequal_probing}'s probes to one backend, asynchronously: a {@code GET}
 * on the backend's probe path (the JDK client's is {@link BallastHttpClient#httpProbes}), whose
 * answer carries {@value BallastHeaders#PROBE}. The balancer sends probes from its pick path and
 * never waits for them; it reads the header itself, so a transport only moves the request and the
 * answer's headers.
 */
@Experimental
@FunctionalInterface
public interface ProbeTransport {

  /**
   * Sends one probe; must return at once.
   *
   * @param endpoint the backend to probe
   * @return completes with the headers of a 2xx answer, with null for any other status (a backend
   *     without Ballast's probe path), or exceptionally when no answer came (a refused connection,
   *     the probe's timeout). A future that never completes only loses that probe.
   */
  CompletableFuture<HeaderLookup> probe(HttpEndpoint endpoint);
}
