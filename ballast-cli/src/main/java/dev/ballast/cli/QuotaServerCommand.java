package dev.ballast.cli;

import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaServerMain;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code ballast quota-server}: the quota service (docs/quota.md) as a process. */
@Command(
    name = "quota-server",
    mixinStandardHelpOptions = true,
    versionProvider = BallastVersion.class,
    description = {
      "Runs the quota service: shares each resource's global rate limit among its clients, max-min fairly, in leases.",
      "Clients use dev.ballast.quota.QuotaClient; see docs/quota.md. Stops on SIGTERM or Ctrl-C."
    },
    modelTransformer = QuotaServerCommand.ServerFlags.class)
final class QuotaServerCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Adds the server's own flags as {@link QuotaServerMain#FLAGS} declares them, so that this
   * command and {@code QuotaServerMain} read the same flags the same way. The options below are
   * this command's alone: they run the server as a replica.
   */
  static final class ServerFlags implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      QuotaServerMain.addOptions(command);
      return command;
    }
  }

  @Option(names = "--zookeeper", paramLabel = "HOST:PORT[,...]",
      description = "Run as one of several replicas that elect a leader per resource through this ZooKeeper ensemble;"
          + " followers send clients to the leader (docs/quota.md, High availability). Default: a single server.")
  String zookeeper;

  @Option(names = "--advertise", paramLabel = "HOST:PORT",
      description = "With --zookeeper: where clients reach this replica, as followers name it to them; with a fixed --port,"
          + " not 0.")
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
          + " under the lease, so that clients keep their leases through a failover (default: ${DEFAULT-VALUE})."
          + " ZooKeeper grants 2 to 20 of its ticks: with tickTime=2000 a session of 2s becomes 4s; the replica logs what"
          + " ZooKeeper granted.")
  String sessionTimeout;

  @Override
  public Integer call() throws Exception {
    QuotaServerMain.Options options;
    QuotaServer server;
    QuotaReplication replication;
    try {
      options = flags().options();
      replication = QuotaReplication.of(zookeeper, advertise, replica, zookeeperPath, sessionTimeout, options,
          spec.commandLine().getParseResult()::hasMatchedOption);
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

  /**
   * The server's flags as given, each read by its {@link QuotaServerMain.Flag}; a bad value is an
   * IllegalArgumentException naming the flag.
   */
  QuotaServerMain.Flags flags() {
    return QuotaServerMain.read(spec.commandLine().getParseResult());
  }
}
