package dev.ballast.cli;

import dev.ballast.quota.QuotaServer;
import dev.ballast.quota.QuotaServerMain;
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

  @Option(names = "--port", paramLabel = "N", defaultValue = "" + QuotaServerMain.DEFAULT_PORT,
      description = "The port to listen on, 0..65535; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  String port;

  @Option(names = "--resource", paramLabel = "NAME=CAPACITY[:safe=RATE]",
      description = "A resource and its global limit per second, with the rate a client falls back to when it"
          + " cannot reach the service (default safe: 0); repeatable, at least one. Example: db=50000:safe=500.")
  List<String> resources = new ArrayList<>();

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

  @Override
  public Integer call() throws Exception {
    QuotaServerMain.Options options;
    QuotaServer server;
    try {
      options = QuotaServerMain.options(QuotaServerMain.port(port), resources, lease, refresh, learning);
      // A port in use is the user's to change, like a bad flag: one line and exit 2, no trace.
      server = QuotaServerMain.start(options);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    QuotaServerMain.serve(server, options, spec.commandLine().getOut());
    return 0;
  }
}
