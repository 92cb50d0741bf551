package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

final class ProgressTest {

  @Test
  void weighsEachRunByTheRequestsItIsExpectedToIssue() {
    Scenario small = ScenarioReader.parse("small.conf", "name = small, duration = 10s, warmup = 1s, load.utilization = 0.5");
    Scenario large = ScenarioReader.parse("large.conf", "name = large, duration = 10s, warmup = 1s, load.utilization = 1.5");
    assertThat(large.expectedRequests()).isCloseTo(3 * small.expectedRequests(), within(1.0));

    Progress progress = new Progress();
    Progress.Run first = progress.register(small);
    Progress.Run second = progress.register(large);
    assertThat(progress.snapshot()).isEqualTo(new Progress.Snapshot(0, 2, 0, 0));

    first.finish(1000);
    // The small run is a quarter of the work, however much simulated time it covered.
    assertThat(progress.snapshot().fraction()).isCloseTo(0.25, within(1e-9));
    second.advance(5_000_000_000L, 1500);
    Progress.Snapshot snapshot = progress.snapshot();
    assertThat(snapshot.finishedRuns()).isEqualTo(1);
    assertThat(snapshot.requests()).isEqualTo(2500);
    assertThat(snapshot.fraction()).isCloseTo(0.25 + 0.75 / 2, within(1e-9));
    // 62.5% done in 10 s leaves 6 s.
    assertThat(snapshot.remainingSeconds(10)).isCloseTo(6.0, within(1e-9));
    assertThat(new Progress.Snapshot(0, 2, 0, 0).remainingSeconds(10)).isNaN();
  }

  @Test
  void expectedRequestsFollowTheFleetsCapacityAndTheSpike() {
    // 10 backends of 4 cores at speed 1 with antagonists of 0.2 at most (0.1 on average): 36 cores;
    // at 15 ms a query and half the capacity, 1,200 requests per second.
    Scenario scenario = ScenarioReader.parse("s.conf", "name = s, duration = 10s, warmup = 1s, backends.count = 10,"
        + " clients.subset-size = 5, load.utilization = 0.5");
    assertThat(scenario.expectedRequests()).isCloseTo(12_000, within(1e-6));
    Scenario spiked = ScenarioReader.parse("s.conf", "name = s, duration = 10s, warmup = 1s, backends.count = 10,"
        + " clients.subset-size = 5, load.utilization = 0.5, load.spike { at = 2s, for = 4s, utilization = 1.5 }");
    assertThat(spiked.expectedRequests()).isCloseTo(12_000 + 4 * 2_400, within(1e-6));
  }
}
