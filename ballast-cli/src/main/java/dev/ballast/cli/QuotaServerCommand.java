package dev.ballast.cli;

import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaServerMain;
import dev.ballast.quota.ResourceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ballast quota-server}: the quota service (docs/quota.md) as a process. */
@Command(
    name = "quota-server",
    mixinStandardHelpOptions = true,
    versionProvider = BallastVersion.class,
    description = {
      "Runs the quota service: shares each resource's global rate limit among its clients, max-min fairly, in leases.",
      "Clients use dev.ballast.quota.QuotaClient; see docs/quota.md. Stops on SIGTERM or Ctrl-C."
    })
final class QuotaServerCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = QuotaServerMain.DEFAULT_HOST,
      description = "The address to listen on (default: ${DEFAULT-VALUE}, this machine only: without mutual TLS the"
          + " service authenticates no one). 0.0.0.0 for every IPv4 interface, :: for every interface.")
  String host;

  @Option(names = "--port", paramLabel = "N", defaultValue = "" + QuotaServerMain.DEFAULT_PORT,
      description = "The port to listen on, 0..65535; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  String port;

  @Option(names = "--resource", paramLabel = "NAME=CAPACITY[:safe=RATE]",
      description = "A resource and its global limit per second, with the rate a client falls back to when it"
          + " cannot reach the service (default safe: 0); repeatable, at least one. Example: db=50000:safe=500.")
  List<String> resources = new ArrayList<>();

  @Option(names = "--max-clients", paramLabel = "N", defaultValue = "" + ResourceConfig.DEFAULT_MAX_CLIENTS,
      description = "How many clients may hold a lease of each resource at once, 1..10000000; a new client past it is"
          + " refused RESOURCE_EXHAUSTED (default: ${DEFAULT-VALUE}).")
  String maxClients;

  @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "20s",
      description = "How long a grant holds, such as 20s or 500ms; 100ms..1h (default: ${DEFAULT-VALUE}).")
  String lease;

  @Option(names = "--refresh", paramLabel = "DURATION", defaultValue = "5s",
      description = "How often clients ask again; 10ms to less than the lease (default: ${DEFAULT-VALUE}).")
  String refresh;

  @Option(names = "--learning", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Start learning: for one lease length grant clients at most what they hold, as after a restart"
          + " (default: on; --no-learning only when no other instance granted leases within a lease length).")
  boolean learning;

  @Option(names = "--tls-cert", paramLabel = "FILE",
      description = "Serve TLS: the server's certificate chain, PEM (with --tls-key).")
  String tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "The server's private key, PEM (PKCS#8).")
  String tlsKey;

  @Option(names = "--tls-client-ca", paramLabel = "FILE",
      description = "Mutual TLS: accept only clients whose certificate this authority (PEM) signed; each lease then"
          + " belongs to the identity of its caller's certificate.")
  String tlsClientCa;

  @Option(names = "--zookeeper", paramLabel = "HOST:PORT[,...]",
      description = "Run as one of several replicas that elect a leader per resource through this ZooKeeper ensemble;"
          + " followers send clients to the leader (docs/quota.md, High availability). Default: a single server.")
  String zookeeper;

  @Option(names = "--advertise", paramLabel = "HOST:PORT",
      description = "With --zookeeper: where clients reach this replica, as followers name it to them.")
  String advertise;

  @Option(names = "--replica", paramLabel = "I/N",
      description = "With --zookeeper: this is replica I (0-based) of N; it leads every Nth resource while all are up"
          + " (default: it stands for every resource at once).")
  String replica;

  @Option(names = "--zookeeper-path", paramLabel = "PATH", defaultValue = "/ballast/quota",
      description = "With --zookeeper: where the elections live, one path per service (default: ${DEFAULT-VALUE}).")
  String zookeeperPath;

  @Option(names = "--session-timeout", paramLabel = "DURATION", defaultValue = "2s",
      description = "With --zookeeper: ZooKeeper's session timeout, how long a dead leader holds its resources;"
          + " under the lease, so that clients keep their leases through a failover (default: ${DEFAULT-VALUE}).")
  String sessionTimeout;

  @Override
  public Integer call() throws Exception {
    QuotaServerMain.Options options;
    QuotaServer server;
    QuotaReplication replication;
    try {
      QuotaServerMain.Flags flags = new QuotaServerMain.Flags();
      flags.host = host;
      flags.port = QuotaServerMain.port(port);
      flags.resources = resources;
      flags.maxClients = QuotaServerMain.maxClients(maxClients);
      flags.lease = lease;
      flags.refresh = refresh;
      flags.learn = learning;
      flags.tlsCert = tlsCert;
      flags.tlsKey = tlsKey;
      flags.tlsClientCa = tlsClientCa;
      options = flags.options();
      replication = QuotaReplication.of(zookeeper, advertise, replica, zookeeperPath, sessionTimeout, options);
      // A port in use or TLS files that do not load are the user's to change, like a bad flag.
      server = replication == null ? QuotaServerMain.start(options) : replication.start(options);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (replication != null) {
      spec.commandLine().getOut().println(replication.describe());
    }
    QuotaServerMain.serve(server, options, spec.commandLine().getOut());
    return 0;
  }
}
