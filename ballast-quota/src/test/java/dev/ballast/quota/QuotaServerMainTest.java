package dev.ballast.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class QuotaServerMainTest {

  @Test
  void parsesResourcesAndLeaseTerms() {
    QuotaServerMain.Options options = QuotaServerMain.parse(new String[] {
        "--port", "0", "--resource", "db=1000:safe=25", "--resource", "cache=5e4", "--lease", "3s", "--refresh", "1000ms", "--no-learning"});
    assertThat(options.port()).isZero();
    assertThat(options.learn()).isFalse();
    assertThat(options.resources()).containsExactly(
        new ResourceConfig("db", 1000, 25, Duration.ofSeconds(3), Duration.ofSeconds(1)),
        new ResourceConfig("cache", 50_000, 0, Duration.ofSeconds(3), Duration.ofSeconds(1)));
    assertThat(QuotaServerMain.describe(options, 8470)).startsWith("ballast quota server on 127.0.0.1 port 8470 (plaintext):")
        .contains("db: capacity 1000/s, safe capacity 25/s, lease 3s, refresh 1s, at most 10000 clients");
  }

  /** Rates and durations read back as they were typed, not as 1.0E7 or PT20S. */
  @Test
  void describesRatesAndLeaseTermsAsTheFlagsWriteThem() {
    QuotaServerMain.Options options = QuotaServerMain.parse(new String[] {
        "--resource", "db=10000000:safe=0.5", "--lease", "2m", "--refresh", "500ms"});
    assertThat(QuotaServerMain.describe(options, 8470))
        .contains("db: capacity 10000000/s, safe capacity 0.5/s, lease 2m, refresh 500ms, at most 10000 clients");
  }

  @Test
  void defaultsToTheLoopbackAddressInPlaintextTwentySecondLeasesRefreshedEveryFiveAndLearning() {
    QuotaServerMain.Options options = QuotaServerMain.parse(new String[] {"--resource", "db=10"});
    assertThat(options.host()).isEqualTo("127.0.0.1");
    assertThat(options.tls()).isNull();
    assertThat(options.resources().get(0).maxClients()).isEqualTo(10_000);
    assertThat(options.port()).isEqualTo(QuotaServerMain.DEFAULT_PORT);
    assertThat(options.learn()).isTrue();
    assertThat(options.resources().get(0).leaseLength()).isEqualTo(Duration.ofSeconds(20));
    assertThat(options.resources().get(0).refreshInterval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void badFlagsAreOneLineErrorsNamingTheValue() {
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=-5"}))
        .hasMessage("--resource: 'db=-5': capacity: -5 (expected: 0..1e12)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=ten"}))
        .hasMessage("--resource: 'db=ten': 'ten' is not a number (expected: 0..1e12)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db"}))
        .hasMessage("--resource: 'db' (expected: NAME=CAPACITY[:safe=RATE], such as db=50000:safe=500)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10:safe=20"}))
        .hasMessage("--resource: 'db=10:safe=20': safe: 20 (expected: 0..10, the capacity)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--resource", "db=20"}))
        .hasMessage("--resource: 'db=20' (expected: each resource named once)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--lease", "soon"}))
        .hasMessage("--lease: 'soon' (expected: a duration such as 500ms, 20s, 2m or 1h)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--lease", "2s", "--refresh", "5s"}))
        .hasMessage("--refresh: 5s (expected: less than the lease length, 2s)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--lease", "2s"}))
        .hasMessage("--refresh: 5s (the default) (expected: less than the lease length, 2s)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--refresh", "1m"}))
        .hasMessage("--refresh: 1m (expected: less than the lease length, 20s (the default))");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--port", "70000"}))
        .hasMessage("--port: '70000' (expected: 0..65535)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {}))
        .hasMessage("--resource: none (expected: at least one NAME=CAPACITY[:safe=RATE])");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource"})).hasMessageStartingWith("--resource: missing value (usage:");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--verbose"})).hasMessageStartingWith("unknown option: '--verbose' (usage:");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--max-clients", "0"}))
        .hasMessage("--max-clients: '0' (expected: 1..10000000)");
  }

  /** What picocli, which parses the flags, adds: --name=value, and one-line errors for what it refuses. */
  @Test
  void picocliParsesTheFlagsAndItsRefusalsKeepTheOneLineShape() {
    QuotaServerMain.Options options = QuotaServerMain.parse(new String[] {"--resource=db=10", "--port=0", "--lease=30s"});
    assertThat(options.port()).isZero();
    assertThat(options.resources()).containsExactly(new ResourceConfig("db", 10, 0, Duration.ofSeconds(30), Duration.ofSeconds(5)));

    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--port", "1", "--port", "2"}))
        .hasMessage("--port: given more than once (expected: once; only --resource repeats)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--port", "--resource", "db=10"}))
        .hasMessageStartingWith("--port: missing value (usage:");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "extra"}))
        .hasMessageStartingWith("unknown option: 'extra' (usage:");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--learning=maybe"}))
        .hasMessage("--learning: 'maybe' (expected: no value, or true or false)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--lease", "-5s"}))
        .hasMessage("--lease: '-5s' (expected: a duration such as 500ms, 20s, 2m or 1h)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--tls-cert", "/no/such/cert.pem", "--tls-key", "k"}))
        .hasMessage("--tls-cert: '/no/such/cert.pem' (not a readable file; expected: a PEM file of the server's certificate chain)");
    assertThatThrownBy(() -> QuotaServerMain.parse(new String[] {"--resource", "db=10", "--verbose\nnext"}))
        .as("a value with a line break stays on one line").hasMessageStartingWith("unknown option: '--verbose\\u000anext'");
  }

  @Test
  void parsesTheHostAndTheBoundOnClients() {
    QuotaServerMain.Options options = QuotaServerMain.parse(new String[] {
        "--host", "0.0.0.0", "--resource", "db=10", "--resource", "cache=5", "--max-clients", "250"});
    assertThat(options.host()).isEqualTo("0.0.0.0");
    assertThat(options.resources()).extracting(ResourceConfig::maxClients).containsExactly(250, 250);
    assertThat(QuotaServerMain.describe(options, 8470)).startsWith("ballast quota server on 0.0.0.0 port 8470 (plaintext)");
  }
}
