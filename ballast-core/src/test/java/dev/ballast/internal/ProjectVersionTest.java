package dev.ballast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class ProjectVersionTest {
  @Test
  void isTheMavenProjectsVersionAsTheBuildWroteIt() {
    assertThat(ProjectVersion.get()).matches("[0-9]+\\.[0-9]+\\.[0-9]+(-SNAPSHOT)?");
  }
}
