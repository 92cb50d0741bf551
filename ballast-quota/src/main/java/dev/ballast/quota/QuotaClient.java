package dev.ballast.quota;

import dev.ballast.internal.Ranges;
import dev.ballast.overload.Backoff;
import dev.ballast.time.NanoClock;
import io.grpc.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A client of the quota service: one per process and service, handing out one {@link
 * ResourceQuota} per resource.
 *
 * <pre>{@code
 * QuotaClient quota = QuotaClient.builder(channel, "frontend-17").build();
 * ResourceQuota db = quota.resource("db").wants(800).safeCapacity(50).start();
 * if (db.tryAcquire()) { ... call the database ... }   // no network call: a local token bucket
 * db.setWants(1200);                                      // asks the service again at once
 * }</pre>
 */
public final class QuotaClient implements AutoCloseable {
  private final String clientId;
  private final QuotaTransport transport;
  private final QuotaTimer timer;
  private final ScheduledExecutorService ownExecutor; // null: the caller's
  private final NanoClock clock;
  private final Backoff backoff;
  private final long rpcTimeoutNanos;
  private final SplittableRandom random;
  private final List<ResourceQuota> resources = new CopyOnWriteArrayList<>();

  private QuotaClient(Builder b, QuotaTransport transport, QuotaTimer timer, ScheduledExecutorService ownExecutor) {
    this.clientId = b.clientId;
    this.transport = transport;
    this.timer = timer;
    this.ownExecutor = ownExecutor;
    this.clock = b.clock;
    this.backoff = b.backoff;
    this.rpcTimeoutNanos = b.rpcTimeout.toNanos();
    this.random = new SplittableRandom(b.seed);
  }

  /**
   * A client of one quota service.
   *
   * @param channel to the quota service; the client does not own it
   * @param clientId names this client across requests and server restarts: 1..256 characters and
   *     at most 512 bytes in UTF-8, unique to this process among the service's clients (a task's
   *     name, host and port, ...): the server grants a lease to one process per id
   *     (docs/quota.md, "One client id, two processes")
   * @return a new builder
   * @throws IllegalArgumentException for a bad client id
   */
  public static Builder builder(Channel channel, String clientId) {
    return new Builder(Map.of("quota", Objects.requireNonNull(channel, "channel")), clientId);
  }

  /**
   * A client of a replicated service ({@code ballast-quota-zookeeper}): each resource's calls go
   * to its leader, which a follower names in its answer, and to the next replica in turn when the
   * one asked cannot be reached.
   *
   * @param replicas a channel to each replica, by the address the replicas advertise ({@code
   *     host:port}), tried in the map's order; the client owns none of them
   * @param clientId as for {@link #builder(Channel, String)}
   * @return a new builder
   * @throws IllegalArgumentException for a bad client id
   */
  public static Builder builder(Map<String, ? extends Channel> replicas, String clientId) {
    if (replicas.isEmpty()) {
      throw new IllegalArgumentException("replicas: none (expected: a channel to each replica, by its address)");
    }
    return new Builder(new LinkedHashMap<>(replicas), clientId);
  }

  /**
   * The id that names this client to the service.
   *
   * @return the id it was built with
   */
  public String clientId() {
    return clientId;
  }

  /**
   * Settings of a resource's lease; {@link ResourceQuota.Builder#start()} starts keeping it.
   *
   * @param resourceId the resource's name on the service
   * @return a new builder for the resource's quota
   */
  public ResourceQuota.Builder resource(String resourceId) {
    return new ResourceQuota.Builder(this, resourceId);
  }

  ResourceQuota start(ResourceQuota.Builder settings) {
    ResourceQuota quota = new ResourceQuota(settings, transport, timer, clock, backoff, rpcTimeoutNanos, random.split());
    resources.add(quota);
    quota.start();
    return quota;
  }

  void forget(ResourceQuota quota) {
    resources.remove(quota);
  }

  /** Closes every resource's quota (their leases are released) and the client's own thread, if any. */
  @Override
  public void close() {
    for (ResourceQuota quota : new ArrayList<>(resources)) {
      quota.close();
    }
    if (ownExecutor != null) {
      ownExecutor.shutdown();
    }
  }

  /** How a quota client is made: its schedule, clock, retries and deadlines, each with a default. */
  public static final class Builder {
    private final Map<String, ? extends Channel> channels;
    private final String clientId;
    private ScheduledExecutorService executor;
    private NanoClock clock = NanoClock.system();
    private Backoff backoff = Backoff.builder().initial(Duration.ofMillis(50)).multiplier(2).cap(Duration.ofSeconds(2)).build();
    private Duration rpcTimeout = Duration.ofSeconds(5);
    private long seed = System.nanoTime();

    private Builder(Map<String, ? extends Channel> channels, String clientId) {
      QuotaMessages.checkId("clientId", clientId);
      this.channels = channels;
      this.clientId = clientId;
    }

    /**
     * Runs refreshes, retries and expiry checks (default: a daemon thread of the client's own, shut
     * down by close). With {@link #clock} and a channel on the same virtual time (gRPC's in-process
     * transport, say), a test runs the client's whole schedule without waiting: see docs/quota.md.
     *
     * @param executor the executor; the client does not shut it down
     * @return this builder
     */
    public Builder executor(ScheduledExecutorService executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Times the leases, the local token buckets and the deadlines of calls to the service (default:
     * the system clock).
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Spaces the retries of a failed refresh (default: 50 ms doubling up to 2 s, full jitter).
     *
     * @param backoff the backoff
     * @return this builder
     */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * The deadline of each call to the service (default 5 s; 10 ms..1 min).
     *
     * @param rpcTimeout the deadline
     * @return this builder
     * @throws IllegalArgumentException when it is out of range
     */
    public Builder rpcTimeout(Duration rpcTimeout) {
      this.rpcTimeout = Ranges.checkDuration("rpcTimeout", rpcTimeout, Duration.ofMillis(10), Duration.ofMinutes(1));
      return this;
    }

    /**
     * Seeds the retries' jitter (default: from the clock), for reproducible tests.
     *
     * @param seed the seed
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Builds the client; with no executor given, it starts a daemon thread of its own.
     *
     * @return the client, to close when done
     */
    public QuotaClient build() {
      ScheduledExecutorService own = null;
      ScheduledExecutorService exec = executor;
      if (exec == null) {
        own = Executors.newSingleThreadScheduledExecutor(runnable -> {
          Thread thread = new Thread(runnable, "ballast-quota-client-" + clientId);
          thread.setDaemon(true);
          return thread;
        });
        exec = own;
      }
      return new QuotaClient(this, new GrpcQuotaTransport(channels, clock), QuotaTimer.of(exec), own);
    }

    /** For unit tests: any transport, manual time. */
    QuotaClient build(QuotaTransport transport, QuotaTimer timer) {
      return new QuotaClient(this, transport, timer, null);
    }
  }
}
