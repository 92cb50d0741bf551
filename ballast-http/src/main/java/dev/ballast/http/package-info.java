/**
 * Ballast for HTTP: the wire format both sides agree on, a client side for any HTTP client with a
 * ready one over the JDK's {@code HttpClient}, and a server side for any HTTP server with an
 * adapter for the JDK's {@code HttpServer} (docs/http.md). The package is flat; its files fall in
 * three groups.
 *
 * <p><b>Wire format</b>: {@link dev.ballast.http.LoadReport} and {@link
 * dev.ballast.http.LoadReportHeader} (ORCA's load report in {@code endpoint-load-metrics}: TEXT,
 * JSON and BIN, by the package-private {@code OrcaText}, {@code OrcaJson} and {@code OrcaProto}),
 * {@link dev.ballast.http.BallastHeaders} (criticality, the time left, overload, lame duck), {@link
 * dev.ballast.http.HttpOutcome} (how an answer or an exception is classified), {@link
 * dev.ballast.http.HeaderLookup} and {@link dev.ballast.http.HeaderWriter} (headers on any stack),
 * {@link dev.ballast.http.MalformedHeaderException}.
 *
 * <p><b>Client side</b>: {@link dev.ballast.http.HttpBalancer} (subset, health, picks, throttle,
 * retry budget, hedging, for any HTTP client), {@link dev.ballast.http.BalancedRequest} and {@link
 * dev.ballast.http.Attempt} (one request and its tries, hedges among them), {@link dev.ballast.http.RequestOptions},
 * {@link dev.ballast.http.HttpEndpoint} and {@link dev.ballast.http.EndpointResolver} (the
 * backends), {@link dev.ballast.http.HealthCheck} (how a backend is checked), {@code
 * EndpointHealth} (one backend's state), {@link dev.ballast.http.RequestNotSentException}, and
 * {@link dev.ballast.http.BallastHttpClient} over the JDK's {@code HttpClient}.
 *
 * <p><b>Server side</b>: {@link dev.ballast.http.BallastHttpService} (admission, deadlines, load
 * reports, lame duck, for any HTTP server), {@link dev.ballast.http.ServerRequest} (one request's
 * verdict and end), {@link dev.ballast.http.RequestContext} (the request a thread serves, for the
 * calls it makes), and {@link dev.ballast.http.JdkHttpServers} (the filter, health handler and
 * drain for the JDK's {@code HttpServer}).
 *
 * <p>{@link dev.ballast.annotation.Experimental}: the module is new, and the Spring integration
 * built on it may still reshape its client and server sides in a minor release. The header names
 * and grammars are the wire format and change only with a deliberate, documented break.
 */
@Experimental
package dev.ballast.http;

import dev.ballast.annotation.Experimental;
