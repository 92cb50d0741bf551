/**
 * Micrometer meters for Ballast, bound in one call: {@link dev.ballast.micrometer.BallastMeters}
 * for balancers, throttles, retry budgets and limiters, {@link
 * dev.ballast.micrometer.BallastGrpcMeters} for gRPC channels and servers, {@link
 * dev.ballast.micrometer.BallastQuotaMeters} for quota clients, services and interceptors. Each returns a {@link
 * dev.ballast.micrometer.MeterBinding} that removes its meters when closed; nothing is added to the
 * pick path.
 */
package dev.ballast.micrometer;
