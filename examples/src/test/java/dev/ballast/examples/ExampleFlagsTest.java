package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

final class ExampleFlagsTest {
  private static ExampleFlags parse(String... args) {
    return ExampleFlags.parse(args, "usage: x", Set.of("--port", "--ports", "--rate"), Set.of("--no-limiter"));
  }

  @Test
  void readsOptionsSwitchesAndDefaults() {
    ExampleFlags flags = parse("--port", "0", "--no-limiter", "--ports", "1,2,3");
    assertThat(flags.port("--port", 50051)).isZero();
    assertThat(flags.has("--no-limiter")).isTrue();
    assertThat(flags.ports("--ports", List.of(), 3)).containsExactly(1, 2, 3);
    assertThat(flags.integer("--rate", 200, 1, 10)).isEqualTo(200);
  }

  @Test
  void badFlagsAreOneLineErrorsNamingTheValueAsWritten() {
    assertThatThrownBy(() -> parse("--port", "http").port("--port", 1))
        .hasMessage("--port: 'http' (expected: 0..65535)");
    assertThatThrownBy(() -> parse("--ports", "50051,50052").ports("--ports", List.of(), 3))
        .hasMessage("--ports: '50051,50052' (expected: 3 ports separated by commas, each 1..65535, such as 50051,50052,50053)");
    assertThatThrownBy(() -> parse("--ports", "1,0,2").ports("--ports", List.of(), 3))
        .hasMessage("--ports: '1,0,2' (expected: 3 ports separated by commas, each 1..65535, such as 50051,50052,50053)");
    assertThatThrownBy(() -> parse("--rate")).hasMessage("--rate: missing value (usage: x)");
    assertThatThrownBy(() -> parse("0", "1")).hasMessage("unknown option: '0' (usage: x)");
  }

  /** Picocli reads the words: --name=value too, and its refusals keep the one-line shape. */
  @Test
  void picocliReadsTheWordsAndItsRefusalsAreOneLineErrors() {
    assertThat(parse("--port=0", "--rate", "7").integer("--rate", 200, 1, 10)).isEqualTo(7);
    assertThat(parse("--port=0").port("--port", 50051)).isZero();
    assertThat(parse().given("--port")).isFalse();
    assertThat(parse("--port", "1").given("--port")).isTrue();
    assertThatThrownBy(() -> parse("--port", "1", "--port", "2"))
        .hasMessage("--port: given more than once (expected: once; usage: x)");
    assertThatThrownBy(() -> parse("--rate", "--port", "1")).hasMessage("--rate: missing value (usage: x)");
    assertThatThrownBy(() -> parse("--no-limiter=yes")).hasMessage("option '--no-limiter' should be specified without 'yes' parameter (usage: x)");
    assertThatThrownBy(() -> parse("--verbose\nx")).hasMessage("unknown option: '--verbose\\u000ax' (usage: x)");
    assertThatThrownBy(() -> parse("--rate", "0").integer("--rate", 200, 1, 10)).hasMessage("--rate: '0' (expected: 1..10)");
  }

  @Test
  void helpAndVersionAreReadAnywhereOnTheLine() {
    assertThat(parse("--port", "1", "--help")).extracting("helpRequested").isEqualTo(true);
    assertThat(parse("-V")).extracting("versionRequested").isEqualTo(true);
  }
}
