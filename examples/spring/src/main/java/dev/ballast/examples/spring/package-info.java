/**
 * A Spring Boot backend and client with Ballast's starter, as an application writes them: {@code
 * examples/run http-server} and {@code examples/run http-client} (docs/spring.md, "Examples").
 */
package dev.ballast.examples.spring;
