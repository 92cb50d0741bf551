package dev.ballast.examples;

import dev.ballast.grpc.BallastClients;
import dev.ballast.grpc.xds.BallastXds;
import dev.ballast.grpc.xds.testing.ManagementServer;
import dev.ballast.grpc.xds.testing.XdsResources;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Ballast configured by an xDS control plane, in one process on 127.0.0.1: a management server
 * (envoyproxy's java-control-plane), the example's three tasks ({@link Fleet}) as the Cluster's
 * endpoints, and a client with target {@code xds:///greeter} whose bootstrap points at the
 * management server. The control plane switches the Cluster's policy live while the client keeps
 * sending; after each phase the program prints the calls each task answered. It stops by itself.
 */
public final class XdsExample {
  static final String USAGE =
      "usage: examples/run xds [--port N] [--control-plane-port N] [--calls-per-phase N] [--calls-at-once N]";
  static final String HELP = """
        --port N                the tasks' first port on 127.0.0.1 (default 0: three free ports)
        --control-plane-port N  the management server's port on 127.0.0.1 (default 0: a free port)
        --calls-per-phase N     calls answered under each policy before the next push (default 3000)
        --calls-at-once N       calls the client keeps in flight, each sent when the last ended (default 4)
      Pushes three Clusters in turn (weighted_round_robin, prequal_probing, round_robin over a subset of 2)
      and prints each phase's calls by task. Exit status 0 when no call failed, 1 otherwise.
      """;
  static final String SERVICE = "greeter";
  /** The phases: the policy the Cluster names, and the subset size. */
  private static final List<Map.Entry<String, Integer>> PHASES =
      List.of(Map.entry("weighted_round_robin", 3), Map.entry("prequal_probing", 3), Map.entry("round_robin", 2));
  private static final Duration DEADLINE = Duration.ofSeconds(10);
  /** Far more than a phase takes; reached only if the client never gets the push, and then said so. */
  private static final long PHASE_SECONDS_AT_MOST = 60;
  private static final long LOAD_SECONDS_AT_MOST = 600;
  private static final Logger GRPC_LOG = Logger.getLogger("io.grpc");

  private XdsExample() {}

  /** The Struct a control plane puts in the Cluster's TypedStruct: the same JSON as a service config's. */
  static String config(String policy, int subsetSize) {
    return "{\"subsetAlgorithm\": \"rendezvous\", \"subsetSize\": " + subsetSize + ", \"policy\": \"" + policy + "\"}";
  }

  public static void main(String[] args) throws Exception {
    ExampleFlags.exitOnUsageError(
        args, USAGE, HELP, Set.of("--port", "--control-plane-port", "--calls-per-phase", "--calls-at-once"), Set.of(),
        flags -> {
          GRPC_LOG.setLevel(Level.WARNING);
          int firstPort = flags.port("--port", 0);
          int controlPlanePort = flags.port("--control-plane-port", 0);
          int callsPerPhase = flags.integer("--calls-per-phase", 3000, 1, 1_000_000);
          int callsAtOnce = flags.integer("--calls-at-once", 4, 1, 1000);
          System.exit(run(firstPort, controlPlanePort, callsPerPhase, callsAtOnce) ? 0 : 1);
        });
  }

  private static boolean run(int firstPort, int controlPlanePort, int callsPerPhase, int callsAtOnce) throws Exception {
    // Each new balancer of the client's channel, by policy, as the pushes reach it.
    LinkedBlockingQueue<String> balancers = new LinkedBlockingQueue<>();
    BallastClients clients = BallastClients.create();
    Runnable stopObserving = clients.observe(new BallastClients.Observer() {
      @Override
      public void opened(BallastClients.Client client) {
        if (client.target().equals(SERVICE)) {
          balancers.add(client.balancer().policy().name());
        }
      }

      @Override
      public void closed(BallastClients.Client client) {}
    });
    Path bootstrap = Files.createTempFile("ballast-xds-example", ".json");
    ManagedChannel channel = null;
    CallLoad load = null;
    try (Fleet fleet = Fleet.start(firstPort, true, Fleet.DEFAULT_WORKERS);
        ManagementServer controlPlane = new ManagementServer(controlPlanePort)) {
      // What a mesh's injector or a deployment writes: the management server, and this client's
      // identity for Ballast's subsetting in the node metadata.
      Files.writeString(bootstrap, controlPlane.bootstrap("greeter-client-0",
          "{\"BALLAST_CLIENT_INDEX\": 0, \"BALLAST_CLIENT_COUNT\": 1}"));
      System.setProperty("io.grpc.xds.bootstrap", bootstrap.toString());
      List<XdsResources.EndpointSpec> endpoints = new ArrayList<>();
      for (int port : fleet.ports()) {
        endpoints.add(XdsResources.EndpointSpec.healthy(port));
      }
      System.out.printf(Locale.ROOT, "control plane on 127.0.0.1:%d, %d tasks on 127.0.0.1:%s, client on xds:///%s%n",
          controlPlane.port(), Fleet.TASKS, ExampleClient.join(fleet.ports()), SERVICE);
      boolean clean = true;
      for (int phase = 0; phase < PHASES.size(); phase++) {
        String policy = PHASES.get(phase).getKey();
        int subsetSize = PHASES.get(phase).getValue();
        String struct = config(policy, subsetSize);
        System.out.println("push: Cluster " + XdsResources.clusterName(SERVICE) + " load_balancing_policy "
            + BallastXds.TYPE_URL + " " + struct);
        if (phase == 0) {
          controlPlane.publish(SERVICE, XdsResources.cluster(SERVICE, BallastXds.TYPE_URL, struct),
              XdsResources.endpoints(SERVICE, endpoints));
          channel = clients.track(Grpc.newChannelBuilder("xds:///" + SERVICE, InsecureChannelCredentials.create())).build();
          load = CallLoad.backToBack(channel, callsAtOnce, DEADLINE, LOAD_SECONDS_AT_MOST);
        } else {
          controlPlane.publish(SERVICE, XdsResources.cluster(SERVICE, BallastXds.TYPE_URL, struct));
        }
        String running = balancers.poll(PHASE_SECONDS_AT_MOST, TimeUnit.SECONDS);
        if (!policy.equals(running)) {
          System.err.println("examples: xds: the client runs " + running + " " + PHASE_SECONDS_AT_MOST
              + " s after the push (expected: " + policy + ")");
          return false;
        }
        // The calls sent before the new balancer belong to the phase before: start counting here.
        Map<String, Long> before = load.nextTally().awaitEnded().outcomes();
        if (phase > 0) {
          clean &= print(PHASES.get(phase - 1).getKey(), before);
        }
        awaitAnswered(fleet, callsPerPhase);
      }
      clean &= print(PHASES.get(PHASES.size() - 1).getKey(), stop(load));
      load = null;
      System.out.println(clean ? "result: three policies pushed live, no call failed" : "result: some calls failed");
      return clean;
    } catch (IOException e) {
      System.err.println("examples: xds: " + e.getMessage());
      return false;
    } finally {
      stopObserving.run();
      if (load != null) {
        load.close();
      }
      if (channel != null) {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      Files.deleteIfExists(bootstrap);
    }
  }

  /** Waits until the tasks together answered {@code calls} more calls, bounded. */
  private static void awaitAnswered(Fleet fleet, int calls) throws InterruptedException {
    long target = answered(fleet) + calls;
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(PHASE_SECONDS_AT_MOST);
    while (answered(fleet) < target && System.nanoTime() < giveUp) {
      Thread.sleep(20);
    }
  }

  private static long answered(Fleet fleet) {
    return fleet.tasks().stream().mapToLong(Fleet.Task::answered).sum();
  }

  private static Map<String, Long> stop(CallLoad load) throws InterruptedException {
    CallLoad.Tally last = load.nextTally();
    load.close();
    return last.awaitEnded().outcomes();
  }

  /** One phase's line: its calls by task and failure; true when none failed. */
  private static boolean print(String policy, Map<String, Long> outcomes) {
    long failed = outcomes.entrySet().stream().filter(e -> !e.getKey().startsWith("task-"))
        .mapToLong(Map.Entry::getValue).sum();
    System.out.printf(Locale.ROOT, "  %-20s %s, failed %d%n", policy, outcomes.entrySet().stream()
        .filter(e -> e.getKey().startsWith("task-")).map(e -> e.getKey() + " " + e.getValue()).toList(), failed);
    return failed == 0;
  }
}
