package dev.ballast.spring.boot.autoconfigure;

import dev.ballast.annotation.Experimental;

/**
 * A {@code ballast.*} property with a value Ballast cannot take: the message is one line that
 * names the property as written, quotes the value and says what was expected, such as {@code
 * ballast.clients.greeter.subset-size: 0 (expected: a whole number in 1..10000)}. Thrown while the
 * application starts, so that it does not start; {@link BallastPropertyFailureAnalyzer} makes the
 * message Spring Boot's description of the failure.
 */
@Experimental
public final class InvalidBallastPropertyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * The exception, with the message of the setting's own check.
   *
   * @param message the one line: the property, its value and what was expected
   * @param cause the setting's own exception
   */
  public InvalidBallastPropertyException(String message, Throwable cause) {
    super(message, cause);
  }
}
