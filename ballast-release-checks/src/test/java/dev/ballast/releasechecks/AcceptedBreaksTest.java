package dev.ballast.releasechecks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class AcceptedBreaksTest {
  private static final String POM = """
      <excludes>
        <exclude>dev.ballast.internal</exclude>
        <!-- accepted-breaks:begin -->
        <!-- <exclude>dev.ballast.pick.Commented</exclude> -->
        <exclude>dev.ballast.pick.Balancer#create(dev.ballast.pick.Policy,dev.ballast.health.HealthConfig)</exclude>
        <exclude>dev.ballast.pick.Balancer$Builder#zone(java.lang.String)</exclude>
        <exclude>dev.ballast.subset.Tags</exclude>
        <!-- accepted-breaks:end -->
      </excludes>
      """;

  @Test
  void everyBreakTheProjectAcceptedIsInItsChangelog() {
    String pom = Poms.text(Poms.root().resolve("pom.xml"));
    String changelog = Poms.text(Poms.root().resolve("CHANGELOG.md"));

    assertThat(AcceptedBreaks.problems(pom, changelog)).isEmpty();
  }

  @Test
  void theBreaksAreTheExcludesBetweenTheMarks() {
    assertThat(AcceptedBreaks.accepted(POM)).containsExactly(
        "dev.ballast.pick.Balancer#create(dev.ballast.pick.Policy,dev.ballast.health.HealthConfig)",
        "dev.ballast.pick.Balancer$Builder#zone(java.lang.String)",
        "dev.ballast.subset.Tags");
  }

  @Test
  void theChangelogNamesAClassOrMemberAsJavaDoes() {
    assertThat(AcceptedBreaks.shortName("dev.ballast.pick.Balancer#create(dev.ballast.pick.Policy)")).isEqualTo("Balancer.create");
    assertThat(AcceptedBreaks.shortName("dev.ballast.pick.Balancer$Builder#zone(java.lang.String)")).isEqualTo("Balancer.Builder.zone");
    assertThat(AcceptedBreaks.shortName("dev.ballast.pick.ZoneConfig#DEFAULT_GAIN")).isEqualTo("ZoneConfig.DEFAULT_GAIN");
    assertThat(AcceptedBreaks.shortName("dev.ballast.subset.Tags")).isEqualTo("Tags");
  }

  @Test
  void aBreakNamedUnderBreakingChangesOfUnreleasedIsAccepted() {
    String changelog = """
        # Changelog

        ## Unreleased

        ### Breaking changes

        - `Balancer.create(policy, health)` is gone: use `Balancer.builder(policy).health(health).build()`.
        - `Balancer.Builder.zone` takes a `Zone`.
        - `Tags` moved to `dev.ballast.internal`.

        ### Zones

        - ...

        ## 0.1.0
        """;

    assertThat(AcceptedBreaks.problems(POM, changelog)).isEmpty();
  }

  @Test
  void aBreakNamedElsewhereOrNotAtAllIsNot() {
    String changelog = """
        ## Unreleased

        ### Breaking changes

        - `Balancer.create(policy, health)` is gone.

        ### Zones

        - `Balancer.Builder.zone` takes a `Zone` (not under Breaking changes).

        ## 0.1.0

        ### Breaking changes

        - `Tags` (a released section's, not this release's).
        """;

    assertThat(AcceptedBreaks.problems(POM, changelog)).containsExactly(
        "accepted API break dev.ballast.pick.Balancer$Builder#zone(java.lang.String): not in CHANGELOG.md (expected: a line naming"
            + " `Balancer.Builder.zone` under \"### Breaking changes\" in the \"## Unreleased\" section, saying what changed and what to do)",
        "accepted API break dev.ballast.subset.Tags: not in CHANGELOG.md (expected: a line naming `Tags` under \"### Breaking changes\""
            + " in the \"## Unreleased\" section, saying what changed and what to do)");
  }
}
