package dev.ballast.cli;

import dev.ballast.internal.ProjectVersion;
import picocli.CommandLine;

/** What {@code -V} prints on every command: the project's version as the build stamped it. */
final class BallastVersion implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {"ballast " + ProjectVersion.get()};
  }
}
