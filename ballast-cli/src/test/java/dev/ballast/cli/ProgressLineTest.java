package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.sim.Progress;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

final class ProgressLineTest {

  @Test
  void saysRunsRequestsElapsedAndRemaining() {
    assertThat(ProgressLine.text(new Progress.Snapshot(3, 10, 12_345_678, 0.25), 20))
        .isEqualTo("ballast sim: 3/10 runs done, 12.3 million requests simulated, 20 s elapsed, about 1 min left");
    assertThat(ProgressLine.text(new Progress.Snapshot(0, 10, 0, 0), 0.5))
        .isEqualTo("ballast sim: 0/10 runs done, 0 requests simulated, 1 s elapsed, estimating the rest");
    assertThat(ProgressLine.millions(999_999)).isEqualTo("999,999");
    assertThat(ProgressLine.millions(100_753_137)).isEqualTo("100.8 million");
    assertThat(ProgressLine.millions(10_080_000_000.0)).isEqualTo("10.1 billion");
    assertThat(ProgressLine.roughly(3725)).isEqualTo("1 h 2 min");
    assertThat(ProgressLine.roughly(125)).isEqualTo("2 min 5 s");
    assertThat(ProgressLine.roughly(120)).isEqualTo("2 min");
  }

  @Test
  void aLogGetsWholeLinesAndATerminalOneLineRewrittenInPlaceThenCleared() {
    StringWriter log = new StringWriter();
    try (ProgressLine line = ProgressLine.unscheduled(new PrintWriter(log), false)) {
      line.print("first");
      line.print("second");
    }
    assertThat(log.toString()).isEqualTo("first" + System.lineSeparator() + "second" + System.lineSeparator());

    StringWriter terminal = new StringWriter();
    try (ProgressLine line = ProgressLine.unscheduled(new PrintWriter(terminal), true)) {
      line.print("a longer line");
      line.print("short");
    }
    // The shorter text pads over what is left of the longer one; closing blanks the line.
    assertThat(terminal.toString()).isEqualTo("\ra longer line" + "\rshort" + " ".repeat(8) + "\r" + " ".repeat(5) + "\r");
  }
}
