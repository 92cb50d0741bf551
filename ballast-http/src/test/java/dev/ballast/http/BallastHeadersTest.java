package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.overload.Criticality;
import dev.ballast.testing.PropertyCheck;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

final class BallastHeadersTest {

  @Test
  void timeoutsUseGrpcTimeoutsGrammarInTheFinestUnitThatFits() {
    assertThat(BallastHeaders.writeTimeout(1)).isEqualTo("1n");
    assertThat(BallastHeaders.writeTimeout(99_999_999)).isEqualTo("99999999n");
    assertThat(BallastHeaders.writeTimeout(100_000_000)).isEqualTo("100000u");
    assertThat(BallastHeaders.writeTimeout(TimeUnit.SECONDS.toNanos(30))).isEqualTo("30000000u");
    assertThat(BallastHeaders.writeTimeout(TimeUnit.HOURS.toNanos(48))).isEqualTo("172800S");
    assertThat(BallastHeaders.writeTimeout(Long.MAX_VALUE)).isEqualTo("2562047H");
    assertThat(BallastHeaders.readTimeout("250m")).isEqualTo(250_000_000L);
    assertThat(BallastHeaders.readTimeout("2H")).isEqualTo(TimeUnit.HOURS.toNanos(2));
    assertThat(BallastHeaders.readTimeout("99999999H")).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aWrittenTimeoutReadsBackNeverLongerAndWithinOnePartInAHundredThousand() {
    PropertyCheck.forAll(in -> in.longBetween(1, Long.MAX_VALUE), nanos -> {
      long read = BallastHeaders.readTimeout(BallastHeaders.writeTimeout(nanos));
      assertThat(read).isLessThanOrEqualTo(nanos).isPositive();
      assertThat((double) (nanos - read) / nanos).isLessThan(1e-5);
    });
  }

  @Test
  void badTimeoutsAreMalformedWithTheValueQuoted() {
    for (String bad : new String[] {"", "m", "5", "123456789m", "-5m", "5 m", "5x", "5ms", "+5m", "1.5S"}) {
      assertThatThrownBy(() -> BallastHeaders.readTimeout(bad)).as(bad)
          .isInstanceOf(MalformedHeaderException.class)
          .hasMessage("ballast-timeout: '" + bad + "' (expected: 1 to 8 digits and a unit, H, M, S, m, u or n, as in 250m)");
    }
    assertThatThrownBy(() -> BallastHeaders.writeTimeout(0)).hasMessage("timeout: 0 ns (expected: more than 0)");
  }

  @Test
  void anyStringIsATimeoutOrMalformed() {
    PropertyCheck.forAll(in -> in.string(0, 12), text -> {
      try {
        assertThat(BallastHeaders.readTimeout(text)).isNotNegative();
      } catch (MalformedHeaderException e) {
        assertThat(e.header()).isEqualTo(BallastHeaders.TIMEOUT);
      }
    });
  }

  @Test
  void criticalitiesReadAsGrpcCarriesThem() {
    for (Criticality c : Criticality.values()) {
      assertThat(BallastHeaders.readCriticality(c.headerValue())).isEqualTo(c);
    }
    assertThat(Criticality.SHEDDABLE_PLUS.headerValue()).isEqualTo("sheddable-plus");
    assertThatThrownBy(() -> BallastHeaders.readCriticality("urgent"))
        .hasMessage("ballast-criticality: 'urgent' (expected: critical-plus, critical, sheddable-plus or sheddable)");
  }

  @Test
  void previousAttemptsAreDigits() {
    assertThat(BallastHeaders.readPreviousAttempts("2")).isEqualTo(2);
    assertThatThrownBy(() -> BallastHeaders.readPreviousAttempts("1234")).isInstanceOf(MalformedHeaderException.class);
    assertThatThrownBy(() -> BallastHeaders.readPreviousAttempts("x")).isInstanceOf(MalformedHeaderException.class);
  }

  @Test
  void aQuotedValueIsShortAndShowsNoControlCharacters() {
    assertThat(MalformedHeaderException.quote("a\r\nb")).isEqualTo("'a??b'");
    assertThat(MalformedHeaderException.quote("x".repeat(100))).isEqualTo("'" + "x".repeat(40) + "...'");
  }

  @Test
  void probeAnswersReadBackAsWrittenAndInAnyOrderWithKeysOfALaterVersionSkipped() {
    PropertyCheck.forAll(in -> new long[] {in.intBetween(0, Integer.MAX_VALUE), in.longBetween(0, Long.MAX_VALUE)}, v -> {
      BallastHeaders.ProbeAnswer read = BallastHeaders.readProbe(BallastHeaders.writeProbe((int) v[0], v[1]));
      assertThat(read).isEqualTo(new BallastHeaders.ProbeAnswer((int) v[0], v[1]));
    });
    assertThat(BallastHeaders.writeProbe(3, 1_500_000)).isEqualTo("requests_in_flight=3, latency_estimate_nanos=1500000");
    assertThat(BallastHeaders.readProbe("latency_estimate_nanos=7,queue=2 ,requests_in_flight = 4"))
        .isEqualTo(new BallastHeaders.ProbeAnswer(4, 7));
  }

  @Test
  void aProbeAnswerBeyondJavasRangeIsTakenAsTheLargestSoThatTheBackendIsAvoided() {
    assertThat(BallastHeaders.readProbe("requests_in_flight=4294967295, latency_estimate_nanos=18446744073709551615"))
        .isEqualTo(new BallastHeaders.ProbeAnswer(Integer.MAX_VALUE, Long.MAX_VALUE));
  }

  @Test
  void badProbeAnswersAreMalformedWithTheValueQuotedShort() {
    String grammar = "requests_in_flight=DIGITS, latency_estimate_nanos=DIGITS, at most 256 characters";
    for (String bad : new String[] {"", "requests_in_flight=1", "latency_estimate_nanos=1", "requests_in_flight=-1, latency_estimate_nanos=1",
        "requests_in_flight=1, latency_estimate_nanos=1.5", "requests_in_flight=1, latency_estimate_nanos=", "requests_in_flight=1,,latency_estimate_nanos=1",
        "requests_in_flight=1, latency_estimate_nanos=1,", "requests_in_flight 1, latency_estimate_nanos=1", "=1, requests_in_flight=1, latency_estimate_nanos=1",
        "requests_in_flight=1, latency_estimate_nanos=1, requests_in_flight=2", "requests_in_flight=0x10, latency_estimate_nanos=1"}) {
      assertThatThrownBy(() -> BallastHeaders.readProbe(bad)).as(bad)
          .isInstanceOfSatisfying(MalformedHeaderException.class, e -> {
            assertThat(e.header()).isEqualTo(BallastHeaders.PROBE);
            assertThat(e.getMessage()).startsWith("ballast-probe: " + MalformedHeaderException.quote(bad) + " (expected: " + grammar);
          });
    }
    String huge = "requests_in_flight=1, latency_estimate_nanos=1, " + "x=1, ".repeat(60);
    assertThatThrownBy(() -> BallastHeaders.readProbe(huge)).isInstanceOf(MalformedHeaderException.class)
        .hasMessageContaining("...").hasMessageContaining("at most 256 characters");
    assertThatThrownBy(() -> BallastHeaders.writeProbe(-1, 0)).hasMessage("probe: -1 in flight, 0 ns (expected: 0 or more of each)");
  }

  @Test
  void anyStringIsAProbeAnswerOrMalformed() {
    PropertyCheck.forAll(in -> in.withProbability(0.3) ? "requests_in_flight=" + in.string(0, 4) + ", latency_estimate_nanos=" + in.string(0, 4)
        : in.string(0, 40), text -> {
      try {
        BallastHeaders.ProbeAnswer read = BallastHeaders.readProbe(text);
        assertThat(read.requestsInFlight()).isNotNegative();
        assertThat(read.latencyEstimateNanos()).isNotNegative();
      } catch (MalformedHeaderException e) {
        assertThat(e.header()).isEqualTo(BallastHeaders.PROBE);
      }
    });
  }
}
