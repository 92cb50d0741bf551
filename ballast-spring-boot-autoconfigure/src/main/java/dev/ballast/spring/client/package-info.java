/**
 * Ballast under Spring Cloud LoadBalancer: {@link dev.ballast.spring.client.BallastLoadBalancer}
 * (a {@code ReactorServiceInstanceLoadBalancer} over ballast-http's {@code HttpBalancer}), the
 * lifecycle that ends each attempt with the backend's answer, the transformers that put Ballast's
 * request headers on each attempt, and the filter ({@code WebClient}) and interceptor ({@code
 * RestClient}) that end cancelled attempts and send retries elsewhere.
 */
@Experimental
package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
