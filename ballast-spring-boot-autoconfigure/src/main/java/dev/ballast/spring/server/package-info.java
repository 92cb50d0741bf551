/**
 * Ballast's server side on Spring: ballast-http's {@code BallastHttpService} as a WebFlux {@code
 * WebFilter} and a Servlet {@code Filter} (admission limiter, criticality, deadline checks, the
 * load report header, lame duck), lame duck on Spring Boot's shutdown, and Actuator's health.
 */
@Experimental
package dev.ballast.spring.server;

import dev.ballast.annotation.Experimental;
