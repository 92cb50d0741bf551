/**
 * Spring Boot's auto-configuration of Ballast: the {@code ballast.*} properties, read through
 * core's setting declarations ({@link dev.ballast.spring.boot.autoconfigure.BallastProperties}),
 * the client side under Spring Cloud LoadBalancer, the server side, and meters on Boot's {@code
 * MeterRegistry}.
 */
@Experimental
package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
