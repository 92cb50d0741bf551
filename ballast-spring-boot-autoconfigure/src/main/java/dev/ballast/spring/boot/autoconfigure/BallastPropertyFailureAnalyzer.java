package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Spring Boot's report of a start-up stopped by a bad {@code ballast.*} property: its description
 * is the one line that names the property, its value and what was expected, instead of the stack
 * of bean-creation exceptions around it.
 */
@Experimental
public final class BallastPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidBallastPropertyException> {

  /** The analyzer; Spring Boot finds it through {@code META-INF/spring.factories}. */
  public BallastPropertyFailureAnalyzer() {}

  /**
   * The analysis of a bad property.
   *
   * @param rootFailure the failure that stopped the start-up
   * @param cause the bad property's exception within it
   * @return the description (the one line) and the action
   */
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidBallastPropertyException cause) {
    return new FailureAnalysis(cause.getMessage(),
        "Correct the property in the application's configuration (docs/spring.md lists every ballast.* property).",
        cause);
  }
}
