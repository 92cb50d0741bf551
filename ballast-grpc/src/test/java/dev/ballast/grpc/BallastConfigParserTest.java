package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.subset.ClientIdentity;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class BallastConfigParserTest {
  private final List<String> warnings = new ArrayList<>();

  private BallastConfigParser parser(Map<String, String> properties, Map<String, String> environment) {
    return new BallastConfigParser(properties::get, environment::get, 42, (level, message) -> warnings.add(level + " " + message));
  }

  private BallastConfig parse(Map<String, ?> json) {
    return parser(Map.of(), Map.of()).parse(json);
  }

  @Test
  void grpcFindsThePolicyByItsName() {
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider("ballast");

    assertThat(provider).isInstanceOf(BallastLoadBalancerProvider.class);
  }

  /** gRFC A52: the name a control plane writes as the last path component of a TypedStruct's type_url. */
  @Test
  void grpcFindsThePolicyByItsQualifiedNameWithTheSameParser() {
    LoadBalancerProvider provider =
        LoadBalancerRegistry.getDefaultRegistry().getProvider(QualifiedBallastLoadBalancerProvider.POLICY_NAME);

    assertThat(provider).isInstanceOf(QualifiedBallastLoadBalancerProvider.class);
    assertThat(provider.parseLoadBalancingPolicyConfig(json("subsetSize", 0)).getError().getDescription())
        .isEqualTo("ballast config: subsetSize: 0 (expected: an integer in 1..10000)");
  }

  @Test
  void anEmptyConfigUsesTheDocumentedDefaults() {
    BallastConfig config = parse(json("clientIndex", 3));

    assertThat(config.subsetter().name()).isEqualTo("orthogonal_lots");
    assertThat(config.subsetSize()).isEqualTo(20);
    assertThat(config.identity()).isEqualTo(ClientIdentity.ofIndex(3));
    assertThat(config.policy().name()).isEqualTo("least_loaded_round_robin");
    assertThat(config.health().activeRequestLimit()).isEqualTo(100);
    assertThat(config.healthCheckServiceName()).isEmpty();
    assertThat(warnings).isEmpty();
  }

  /**
   * A field set to JSON null is an error naming its path, not its default: a null client index
   * used to make the client client 0, even with an index in the environment.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"clientIndex\": null}|clientIndex",
        "{\"clientIndex\": 3, \"clientCount\": null}|clientCount",
        "{\"subsetAlgorithm\": \"orthogonal_lots\", \"clientIndex\": 1, \"lotSize\": null}|lotSize",
        "{\"clientIndex\": 1, \"subsetSize\": null}|subsetSize",
        "{\"clientIndex\": 1, \"healthCheckServiceName\": null}|healthCheckServiceName",
        "{\"clientIndex\": 1, \"policy\": null}|policy",
        "{\"clientIndex\": 1, \"policy\": {\"fair_share\": {\"window\": null}}}|policy.fair_share.window",
        "{\"clientIndex\": 1, \"policy\": {\"interleaved_weighted_round_robin\": {\"weights\": {\"a\": null}}}}"
            + "|policy.interleaved_weighted_round_robin.weights.a",
      })
  void aFieldSetToNullIsAnErrorNamingItsPath(String config, String path) {
    BallastConfigParser parser = parser(Map.of(), Map.of("BALLAST_CLIENT_INDEX", "7"));

    assertThatThrownBy(() -> parser.parse(JsonTestParser.parse(config)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(path + ": null (expected: a value; leave the field out for its default)");
  }

  @Test
  void everyFieldIsRead() {
    BallastConfig config =
        parse(
            json(
                "subsetAlgorithm", "deterministic",
                "subsetSize", 3,
                "subsetSalt", 7,
                "clientIndex", 4,
                "clientCount", 10,
                "policy", Map.of("weighted_round_robin", json("blackoutPeriod", "0s", "weightUpdatePeriod", "0.25s")),
                "activeRequestLimit", 50,
                "healthCheckServiceName", "echo",
                "healthCheckInterval", "2s",
                "idleHealthCheckInterval", "30s",
                "idleAfter", "90s",
                "warmUpWindow", "5s",
                "warmUpStartFactor", 0.2));

    assertThat(config.subsetter().name()).isEqualTo("deterministic");
    assertThat(config.subsetSize()).isEqualTo(3);
    assertThat(config.identity()).isEqualTo(ClientIdentity.of(4, 10));
    assertThat(config.policy().name()).isEqualTo("weighted_round_robin");
    assertThat(config.policy().toString()).contains("blackoutPeriod=PT0S").contains("weightUpdatePeriod=PT0.25S");
    assertThat(config.health().activeRequestLimit()).isEqualTo(50);
    assertThat(config.health().healthCheckInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.health().idleHealthCheckInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.health().idleAfter()).isEqualTo(Duration.ofSeconds(90));
    assertThat(config.health().warmUpWindow()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.health().warmUpStartFactor()).isEqualTo(0.2);
    assertThat(config.healthCheckServiceName()).isEqualTo("echo");
  }

  @Test
  void theClientIdentityComesFromTheConfigThenSystemPropertiesThenTheEnvironment() {
    Map<String, String> properties = Map.of("ballast.client.index", "5", "ballast.client.count", "8");
    Map<String, String> environment = Map.of("BALLAST_CLIENT_INDEX", "6", "BALLAST_CLIENT_COUNT", "9");

    assertThat(parser(properties, environment).parse(json("clientIndex", 1)).identity())
        .isEqualTo(ClientIdentity.ofIndex(1));
    assertThat(parser(properties, environment).parse(json()).identity()).isEqualTo(ClientIdentity.of(5, 8));
    assertThat(parser(Map.of(), environment).parse(json()).identity()).isEqualTo(ClientIdentity.of(6, 9));
    assertThat(warnings).isEmpty();
  }

  /** The Cluster a control plane pushes is the same for every client; the bootstrap's node metadata is not. */
  @Test
  void afterTheEnvironmentTheIdentityComesFromTheXdsBootstrapNodeMetadata() {
    XdsBootstrapMetadata bootstrap =
        XdsBootstrapMetadata.parse(
            "test", "{\"node\": {\"metadata\": {\"BALLAST_CLIENT_INDEX\": \"2\", \"BALLAST_CLIENT_COUNT\": 7}}}");
    Map<String, String> environment = Map.of("BALLAST_CLIENT_INDEX", "6", "BALLAST_CLIENT_COUNT", "9");

    assertThat(bootstrapParser(Map.of(), bootstrap).parse(json()).identity()).isEqualTo(ClientIdentity.of(2, 7));
    assertThat(bootstrapParser(environment, bootstrap).parse(json()).identity()).isEqualTo(ClientIdentity.of(6, 9));
    assertThat(warnings).isEmpty();
  }

  @Test
  void aBadIdentityInTheXdsBootstrapNamesTheMetadataKey() {
    XdsBootstrapMetadata bootstrap =
        XdsBootstrapMetadata.parse("test", "{\"node\": {\"metadata\": {\"BALLAST_CLIENT_INDEX\": 1.5}}}");

    assertThatThrownBy(() -> bootstrapParser(Map.of(), bootstrap).parse(json()))
        .hasMessage(
            "xDS bootstrap node.metadata BALLAST_CLIENT_INDEX: '1.5' (expected: an integer in 0..2147483647)");
  }

  @Test
  void aClientWithoutAnIdentityIsToldOfTheBootstrapKeysToo() {
    XdsBootstrapMetadata bootstrap = XdsBootstrapMetadata.parse("test", "{\"node\": {\"id\": \"client\"}}");

    assertThat(bootstrapParser(Map.of(), bootstrap).parse(json()).identity()).isEqualTo(ClientIdentity.anonymous(42));
    assertThat(warnings).singleElement().asString()
        .startsWith("INFO ").contains("BALLAST_CLIENT_INDEX", "xDS bootstrap's node.metadata");
  }

  private BallastConfigParser bootstrapParser(Map<String, String> environment, XdsBootstrapMetadata bootstrap) {
    return new BallastConfigParser(k -> null, environment::get, bootstrap::value, 42, (level, message) -> warnings.add(level + " " + message));
  }

  @Test
  void everyCorePolicyCanBeSelectedWithItsSettings() {
    for (String policy : dev.ballast.pick.Policy.names()) {
      assertThat(parse(json("policy", policy)).policy().name()).isEqualTo(policy);
    }
    assertThat(
            parse(JsonTestParser.parse(
                    "{\"policy\": {\"fair_share\": {\"statistic\": \"median\", \"window\": 32,"
                        + " \"initialServiceTime\": \"0.02s\", \"candidates\": 4, \"staleAfter\": \"7s\"}}}"))
                .policy()
                .toString())
        .contains("MEDIAN", "32", "PT0.02S", "candidates=4", "staleAfter=PT7S");
    assertThat(
            parse(JsonTestParser.parse(
                    "{\"policy\": {\"interleaved_weighted_round_robin\": {\"weights\": {\"b1\": 3}, \"defaultWeight\": 2}}}"))
                .policy()
                .toString())
        .contains("b1=3", "2");
  }

  @Test
  void prequalProbingReadsEverySettingAndHandsTheTransportItsProbeSettings() {
    BallastConfig config =
        parse(JsonTestParser.parse(
            "{\"policy\": {\"prequal_probing\": {\"poolSize\": 8, \"maxAge\": \"0.25s\", \"reuseBudget\": 3,"
                + " \"probesPerPick\": 1.5, \"idleProbeInterval\": \"0.05s\", \"hotQuantile\": 0.8}}}"));

    PrequalProbingConfig expected =
        new PrequalProbingConfig(8, Duration.ofMillis(250), 3, 1.5, Duration.ofMillis(50), 0.8);
    assertThat(config.policy().name()).isEqualTo("prequal_probing");
    assertThat(config.policy().toString()).contains(expected.toString());
    assertThat(config.probing()).isEqualTo(expected);
  }

  @Test
  void onlyPrequalProbingHasProbeSettings() {
    assertThat(parse(json("policy", "prequal_probing")).probing()).isEqualTo(PrequalProbingConfig.defaults());
    assertThat(parse(json("policy", "power_of_two_choices")).probing()).isNull();
    assertThat(parse(json()).probing()).isNull();
  }

  @Test
  void withoutAnIdentityAnAlgorithmThatNeedsOneFallsBackToRendezvousWithAnAnonymousSeedAndWarns() {
    BallastConfig config = parse(json("subsetAlgorithm", "deterministic"));

    assertThat(config.subsetter().name()).isEqualTo("rendezvous");
    assertThat(config.identity()).isEqualTo(ClientIdentity.anonymous(42));
    assertThat(warnings).singleElement().asString()
        .startsWith("WARNING ballast: subsetAlgorithm deterministic needs a client index and there is none")
        .contains("clientIndex", "ballast.client.index", "BALLAST_CLIENT_INDEX", "rendezvous");
  }

  /**
   * The default config asks for nothing it cannot have: without an index its algorithm is
   * rendezvous, said at INFO with how to set an index for orthogonal lots; with one, orthogonal
   * lots, silently.
   */
  @Test
  void theDefaultAlgorithmIsOrthogonalLotsWithAnIndexAndRendezvousWithoutOneSaidAtInfo() {
    BallastConfig anonymous = parse(json());

    assertThat(anonymous.subsetter().name()).isEqualTo("rendezvous");
    assertThat(warnings).singleElement().asString()
        .startsWith("INFO ballast: no client index, so subsetting uses rendezvous with an anonymous seed")
        .contains("for equal numbers with orthogonal_lots, set clientIndex and clientCount", "BALLAST_CLIENT_INDEX");
    warnings.clear();

    assertThat(parse(json("clientIndex", 3, "clientCount", 10)).subsetter().name()).isEqualTo("orthogonal_lots");
    assertThat(parser(Map.of(), Map.of("BALLAST_CLIENT_INDEX", "3")).parse(json()).subsetter().name())
        .isEqualTo("orthogonal_lots");
    assertThat(warnings).isEmpty();
  }

  @Test
  void anIdentityFreeAlgorithmNeedsNoIdentityAndGivesNoWarning() {
    assertThat(parse(json("subsetAlgorithm", "random")).subsetter().name()).isEqualTo("random");
    assertThat(warnings).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock = """
          {"subsetAlgorithm": "consistent"}        | subsetAlgorithm: 'consistent' (expected: one of random, deterministic, rendezvous, orthogonal_lots)
          {"subsetSize": 0}                        | subsetSize: 0 (expected: an integer in 1..10000)
          {"subsetSize": 2.5}                      | subsetSize: 2.5 (expected: an integer in 1..10000)
          {"subsetSize": "3"}                      | subsetSize: "3" (expected: an integer in 1..10000)
          {"clientIndex": -1}                      | clientIndex: -1 (expected: an integer in 0..2147483646)
          {"clientIndex": 10, "clientCount": 10}   | clientIndex: 10 (expected: 0..9 for clientCount 10)
          {"clientCount": 10}                      | clientCount: 10 (expected: only together with clientIndex)
          {"lotSize": 3, "subsetAlgorithm": "deterministic"} | lotSize: 3 (expected: only with subsetAlgorithm orthogonal_lots, not deterministic)
          {"policy": "fastest"}                    | policy: 'fastest' (expected: one of round_robin, least_loaded_round_robin, weighted_round_robin, power_of_two_choices, fair_share, interleaved_weighted_round_robin, prequal_probing, test_fewest_in_flight)
          {"policy": {"prequal_probing": {"poolSize": 0}}} | policy.prequal_probing.poolSize: 0 (expected: a whole number in 1..64)
          {"policy": {"prequal_probing": {"poolSize": 2.5}}} | policy.prequal_probing.poolSize: 2.5 (expected: a whole number in 1..64)
          {"policy": {"prequal_probing": {"reuseBudget": 1001}}} | policy.prequal_probing.reuseBudget: 1001 (expected: a whole number in 1..1000)
          {"policy": {"prequal_probing": {"probesPerPick": 17}}} | policy.prequal_probing.probesPerPick: 17 (expected: a number in 0..16)
          {"policy": {"prequal_probing": {"probesPerPick": "2"}}} | policy.prequal_probing.probesPerPick: '2' (expected: a number in 0..16)
          {"policy": {"prequal_probing": {"hotQuantile": 0}}} | policy.prequal_probing.hotQuantile: 0 (expected: a number in 0.01..1)
          {"policy": {"prequal_probing": {"maxAge": "0s"}}} | policy.prequal_probing.maxAge: 0s (expected: a duration in 1ms..1h)
          {"policy": {"prequal_probing": {"idleProbeInterval": "0.1"}}} | policy.prequal_probing.idleProbeInterval: '0.1' (expected: a duration in 1ms..1h)
          {"policy": {"prequal_probing": {"probeRate": 1}}} | policy.prequal_probing.probeRate: unknown key (expected: one of hotQuantile, idleProbeInterval, maxAge, poolSize, probesPerPick, reuseBudget)
          {"policy": {"least_loaded_round_robin": {"scanWindow": 0}}} | policy.least_loaded_round_robin.scanWindow: 0 (expected: a whole number in 1..1000000)
          {"policy": {"fair_share": {"statistic": "avg"}}} | policy.fair_share.statistic: 'avg' (expected: mean or median)
          {"policy": {"fair_share": {"window": 5000}}} | policy.fair_share.window: 5000 (expected: a whole number in 1..4096)
          {"policy": {"interleaved_weighted_round_robin": {"weights": {"b1": 0}}}} | policy.interleaved_weighted_round_robin.weights.b1: 0 (expected: a whole number in 1..100)
          {"policy": {"interleaved_weighted_round_robin": {"weights": "b1"}}} | policy.interleaved_weighted_round_robin.weights: 'b1' (expected: an object from backend key to a whole number in 1..100)
          {"policy": {"round_robin": {"x": 1}}}    | policy.round_robin.x: unknown key (expected: no settings)
          {"policy": {"weighted_round_robin": {"blackoutPeriod": "10"}}} | policy.weighted_round_robin.blackoutPeriod: '10' (expected: a duration in 0s..1h)
          {"policy": {"weighted_round_robin": {"blackoutPeriod": "7200s"}}} | policy.weighted_round_robin.blackoutPeriod: 2h (expected: a duration in 0s..1h)
          {"policy": {"least_loaded_round_robin": {"countErrors": "yes"}}} | policy.least_loaded_round_robin.countErrors: 'yes' (expected: true or false)
          {"policy": ["round_robin"]}              | policy: [round_robin] (expected: a policy name, or an object with one key
          {"activeRequestLimit": 0}                | activeRequestLimit: 0 (expected: a whole number in 1..1000000)
          {"healthCheckInterval": "0s"}            | healthCheckInterval: 0s (expected: a duration in 1ms..1h)
          {"healthCheckInterval": "10"}            | healthCheckInterval: '10' (expected: a duration in 1ms..1h)
          {"idleAfter": 60}                        | idleAfter: 60 (expected: a duration in 1ms..1d)
          {"idleHealthCheckInterval": "1s"}        | idleHealthCheckInterval: 1s (expected: 5s..1d, idle checks are the cheaper ones)
          {"warmUpStartFactor": 2}                 | warmUpStartFactor: 2 (expected: a number in 0.01..1)
          {"healthCheckServiceName": 5}            | healthCheckServiceName: 5 (expected: a string)
          {"subsetSise": 3}                        | subsetSise: unknown key (expected: one of activeRequestLimit, clientCount, clientIndex,
          """)
  void aBadConfigIsRejectedWithTheFieldTheValueAndWhatIsAllowed(String config, String message) {
    ConfigOrError result = new BallastLoadBalancerProvider().parseLoadBalancingPolicyConfig(JsonTestParser.parse(config));

    assertThat(result.getError()).isNotNull();
    assertThat(result.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(result.getError().getDescription()).startsWith("ballast config: " + message);
    // Under xDS the error goes back to the control plane in a NACK: one line, no stack trace.
    assertThat(result.getError().getCause()).isNull();
    assertThat(result.getError().getDescription()).doesNotContain("\n");
  }

  /** A defect, not a bad value: the stack trace is logged where it happened, the error names only the exception. */
  @Test
  void aFailureThatIsNotABadValueIsLoggedWithItsStackTraceAndTheErrorIsOneLine() throws Exception {
    Map<String, Object> failing = new java.util.AbstractMap<>() {
      @Override
      public java.util.Set<Entry<String, Object>> entrySet() {
        throw new IllegalStateException("a map that fails\nto iterate");
      }
    };
    List<ConfigOrError> results = new ArrayList<>();
    List<java.util.logging.LogRecord> logged = dev.ballast.testing.CapturedLog.whileRunning(
        BallastLoadBalancerProvider.class, () -> results.add(new BallastLoadBalancerProvider().parseLoadBalancingPolicyConfig(failing)));

    Status error = results.get(0).getError();
    assertThat(error.getCause()).isNull();
    assertThat(error.getDescription()).isEqualTo("ballast config: java.lang.IllegalStateException: a map that fails\\nto iterate"
        + " (a defect of Ballast, logged by the client with its stack trace)");
    assertThat(logged).hasSize(1);
    assertThat(logged.get(0).getThrown()).hasMessage("a map that fails\nto iterate");
  }

  @Test
  void aBadIdentityFromTheEnvironmentNamesTheVariable() {
    assertThatThrownBy(() -> parser(Map.of(), Map.of("BALLAST_CLIENT_INDEX", "first")).parse(json()))
        .hasMessage("environment variable BALLAST_CLIENT_INDEX: 'first' (expected: an integer in 0..2147483647)");
    assertThatThrownBy(
            () -> parser(Map.of("ballast.client.index", "9", "ballast.client.count", "4"), Map.of()).parse(json()))
        .hasMessage(
            "system property ballast.client.index: 9 (expected: 0..3 for system property ballast.client.count 4)");
  }

  @Test
  void aChannelWhoseDefaultConfigIsBadFailsToBuildWithTheMessage() {
    assertThatThrownBy(() -> Clients.ballast("dns:///localhost:1", json("subsetSize", 0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ballast config: subsetSize: 0 (expected: an integer in 1..10000)");
  }

  @Test
  void theProviderNeverThrowsEvenOnMalformedInput() {
    Map<String, Object> weird = new java.util.HashMap<>();
    weird.put("policy", Map.of(1, 2));
    ConfigOrError result = new BallastLoadBalancerProvider().parseLoadBalancingPolicyConfig(weird);

    assertThat(result.getError()).isNotNull();
    assertThat(result.getError().getDescription()).startsWith("ballast config: policy");
  }
}
