package dev.ballast.sim;

import dev.ballast.annotation.Experimental;

/** A scenario file that cannot be run; the message names the file, the key and what was expected. */
@Experimental
public final class ScenarioException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * A scenario that cannot be run.
   *
   * @param message names the file, the key and what was expected
   */
  public ScenarioException(String message) {
    super(message);
  }
}
