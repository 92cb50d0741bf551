package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.examples.policy.PrimaryFirstConfig;
import dev.ballast.examples.policy.PrimaryFirstPolicy;
import dev.ballast.grpc.BallastClients;
import dev.ballast.health.BackendState;
import dev.ballast.pick.Balancer;
import dev.ballast.sim.RunResult;
import dev.ballast.sim.Scenario;
import dev.ballast.sim.ScenarioReader;
import dev.ballast.sim.SuiteRunner;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The example policy, {@code primary_first}, selected by name where a team selects a built-in
 * one: in a gRPC service config, over the example's fleet on loopback, and in a simulator
 * scenario. Its provider is found through this module's {@code META-INF/services} registration.
 */
final class PrimaryFirstByNameTest {

  /** A service config names the policy; every call of one client, one at a time, goes to its one primary. */
  @Test
  void aServiceConfigSelectsItByName() throws Exception {
    Logger.getLogger("dev.ballast.grpc").setLevel(Level.WARNING);
    Fleet fleet = Fleet.start(0, false, Fleet.DEFAULT_WORKERS);
    BallastClients clients = BallastClients.create();
    Map<String, Object> ballast = Map.of("subsetSize", 3.0, "clientIndex", 0.0, "clientCount", 1.0,
        "policy", Map.of("primary_first", Map.of("primaries", 1.0)));
    ManagedChannel channel = clients.track(ManagedChannelBuilder.forTarget(StaticResolverProvider.target(fleet.ports())))
        .usePlaintext()
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of("ballast", ballast))))
        .build();
    try {
      // Until every task is connected: before that, a primary still connecting spills to a secondary.
      ClientCalls.blockingUnaryCall(channel, Greeter.GREET, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), "hello");
      Balancer balancer = clients.open().get(0).balancer();
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!balancer.health().backends().stream().allMatch(b -> b.state() == BackendState.HEALTHY)) {
        assertThat(System.nanoTime() - giveUp).as("still waiting for the three tasks to connect").isNegative();
        TimeUnit.MILLISECONDS.sleep(1);
      }

      Map<String, Integer> answeredBy = new HashMap<>();
      for (int i = 0; i < 30; i++) {
        String task = ClientCalls.blockingUnaryCall(
            channel, Greeter.GREET, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), "hello");
        answeredBy.merge(task, 1, Integer::sum);
      }

      assertThat(answeredBy).hasSize(1).containsValue(30);
      PrimaryFirstPolicy policy = (PrimaryFirstPolicy) balancer.policy();
      assertThat(policy.config()).isEqualTo(new PrimaryFirstConfig(1, 8));
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      fleet.close();
    }
  }

  /** The example scenario names the policy and its settings; the simulator runs it beside a built-in one. */
  @Test
  void theExampleScenarioRunsItByNameInTheSimulator() {
    Scenario scenario = ScenarioReader.read(Path.of("scenarios", "primary-first.conf"));

    RunResult own = SuiteRunner.run(scenario, "primary_first", 1);
    RunResult builtIn = SuiteRunner.run(scenario, "least_loaded_round_robin", 1);

    assertThat(scenario.policies()).containsExactly("primary_first", "least_loaded_round_robin");
    assertThat(scenario.policySettings().config(PrimaryFirstConfig.SETTINGS)).isEqualTo(new PrimaryFirstConfig(2, 4));
    assertThat(own.summary().policy()).isEqualTo("primary_first");
    assertThat(own.summary().requests()).isPositive();
    assertThat(builtIn.summary().requests()).isPositive();
  }
}
