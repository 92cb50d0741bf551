package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.Hedging;
import dev.ballast.overload.HedgingConfig;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucket;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PrequalProbingConfig;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.probe.ProbeReceiver;
import dev.ballast.settings.Setting;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.ClientIdentity;
import dev.ballast.subset.Replacements;
import dev.ballast.subset.SubsetConfig;
import dev.ballast.subset.Subsetter;
import dev.ballast.subset.ZonedSubsets;
import dev.ballast.time.NanoClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client's balancer over an HTTP service, for any HTTP client: the subset, each backend's
 * health, the policy's picks, outlier ejection, zones, the adaptive throttle, the retry budget and
 * deadlines. It sends nothing itself. A transport asks it for an {@link Attempt} per try of a
 * request ({@link #newRequest}, {@link BalancedRequest#nextAttempt()}), sends the request to the
 * attempt's backend, and hands back the answer's status and headers or the exception; the balancer
 * classifies it ({@link HttpOutcome}), reads the load report and the lame duck signal, and says
 * whether another attempt may follow. {@link BallastHttpClient} drives it with the JDK's {@code
 * HttpClient}; other stacks' integrations drive it the same way.
 *
 * <pre>{@code
 * HttpBalancer balancer = HttpBalancer.builder()
 *     .policy(Policy.weightedRoundRobin())
 *     .identity(ClientIdentity.of(index, count))
 *     .build();
 * balancer.updateEndpoints(List.of(HttpEndpoint.of(URI.create("http://10.0.0.7:8080")), ...));
 * }</pre>
 *
 * <p><b>Health.</b> A backend starts connecting and is checked at once: with a health path
 * ({@link Builder#healthCheck}), by HTTP at the health-check interval (2xx serving, 503 lame duck,
 * 404 no health service); without one, by a TCP connect while it is not serving. A refused
 * connection on a request makes the backend refusing at once, and a stand-in from outside the
 * subset takes its place until it accepts connections again; the lame duck signal on any answer
 * takes it out of rotation within one round trip. A backend in lame duck that has no health path
 * is let back in when it accepts connections again, one check interval later: if it still drains,
 * its next answer carries the signal again.
 *
 * <p>Control-plane work (endpoint updates, health answers, the periodic refresh) runs on one
 * thread of the balancer's own; the data path (attempts and their ends) runs on the caller's.
 */
@Experimental
public final class HttpBalancer implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(HttpBalancer.class.getName());

  /** {@setting} */
  public static final Setting<Duration> HEALTH_CHECK_TIMEOUT =
      Setting.duration("healthCheckTimeout", Duration.ofSeconds(5), Duration.ofMillis(1), Duration.ofMinutes(1),
          "how long a health check or TCP connect check may take");
  /** {@setting} */
  public static final Setting<Duration> PICK_TIMEOUT =
      Setting.duration("pickTimeout", Duration.ofSeconds(10), Duration.ZERO, Duration.ofHours(1),
          "how long a request without a deadline waits for a backend when none can take it now");
  /** {@setting} */
  public static final Setting<Duration> PROBE_TIMEOUT =
      Setting.duration("probeTimeout", PrequalProbingConfig.DEFAULT_MAX_AGE, Duration.ofMillis(1), Duration.ofMinutes(1),
          "how long a probe of prequal_probing may take; a later answer would be too old for its pool (maxAge)");

  private final Balancer balancer;
  private final Subsetter subsetter;
  private final int subsetSize;
  private final int remoteSubsetSize;
  private final String requestHashHeader;
  private final ClientIdentity identity;
  private final String zone;
  private final boolean routeByZone;
  private final HealthCheck healthCheck;
  private final boolean activeHealthCheck;
  private final long healthCheckTimeoutNanos;
  final AdaptiveThrottle throttle;
  final RetryBudget budget;
  final RetryPolicy retry;
  final TokenBucket rateLimit;
  final Hedging hedging;
  final boolean hedgeByDefault;
  final NanoClock clock;
  private final long pickTimeoutNanos;
  private final ScheduledExecutorService sync;
  private final ScheduledFuture<?> refreshTimer;

  // Confined to sync.
  private Map<String, HttpEndpoint> endpointsByKey = Map.of();
  private BackendSet backends;
  private int[] subsetRanks = new int[0];
  private Map<String, String> zonesByKey = Map.of();
  private List<String> balancerKeys = List.of();
  private Map<String, String> balancerZones = Map.of();
  private final Map<String, EndpointHealth> active = new LinkedHashMap<>();
  private boolean closed;

  /** Read on the data path: each backend in use, by key. */
  private volatile Map<String, EndpointHealth> byKey = Map.of();
  private volatile boolean closing;
  private final ConcurrentLinkedQueue<BalancedRequest.Waiter> waiters = new ConcurrentLinkedQueue<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final LongAdder badHeaders = new LongAdder();
  private final LongAdder badLoadReports = new LongAdder();
  private final LongAdder lameDuckSignals = new LongAdder();
  private final LongAdder retriesSent = new LongAdder();
  private final LongAdder notSent = new LongAdder();
  private final ProbeTransport probes;
  private final LongAdder probesFailed = new LongAdder();

  private HttpBalancer(Builder b) {
    if (b.policy.needsProbes() && b.probes == null) {
      throw new IllegalArgumentException("policy: " + b.policy.name()
          + " (expected: a probe transport for it, HttpBalancer.Builder.probes(...); BallastHttpClient gives one)");
    }
    Balancer.Builder core = Balancer.builder(b.policy).health(b.health).outlierEjection(b.outliers)
        .clock(b.balancerClock).zoneRouting(b.zoneRouting);
    this.probes = b.probes;
    if (b.probes != null) {
      core.probes(this::probe);
    }
    if (b.zone != null) {
      core.zone(b.zone);
    }
    if (b.policy.needsEveryBackend() && (b.subsetter != null || b.remoteSubsetSize >= 0)) {
      String setting = b.subsetter != null ? "subsetting: " + b.subsetter.name() + ", " + b.subsetSize
          : "remoteSubsetSize: " + b.remoteSubsetSize;
      throw new IllegalArgumentException(setting + " (expected: no subsetting with policy " + b.policy.name()
          + ", which uses every backend so that all clients send a key to the same one; leave it out,"
          + " docs/policies.md \"consistent_hash and subsetting\")");
    }
    this.balancer = core.build();
    this.identity = b.identity != null ? b.identity : ClientIdentity.anonymous(ThreadLocalRandom.current().nextLong());
    Subsetter chosen = b.subsetter != null ? b.subsetter
        : identity.hasIndex() && !b.policy.needsEveryBackend() ? Subsetter.orthogonalLots() : Subsetter.rendezvous();
    if (!identity.hasIndex() && (chosen.name().equals("deterministic") || chosen.name().equals("orthogonal_lots"))) {
      throw new IllegalArgumentException("subsetter: " + chosen.name()
          + " (expected: rendezvous or random for a client without an index, or an identity with an index)");
    }
    this.subsetter = chosen;
    // A keyed policy hashes over every backend (of the client's zone, and of each other zone).
    this.subsetSize = b.policy.needsEveryBackend() ? Integer.MAX_VALUE : b.subsetSize;
    this.remoteSubsetSize = b.remoteSubsetSize < 0 ? subsetSize : b.remoteSubsetSize;
    this.requestHashHeader = b.policy.requestHashHeader();
    this.zone = b.zone;
    this.routeByZone = b.zone != null && b.zoneRouting.enabled();
    this.activeHealthCheck = b.healthCheck != null;
    this.healthCheckTimeoutNanos = b.healthCheckTimeout.toNanos();
    this.healthCheck = b.healthCheck != null ? b.healthCheck : HealthCheck.tcpConnect(b.healthCheckTimeout);
    this.throttle = b.throttle == null ? null : AdaptiveThrottle.create(b.throttle, b.balancerClock);
    this.retry = b.retry;
    this.budget = b.retryBudget ? RetryBudget.create(b.retry.budget(), b.balancerClock) : null;
    this.rateLimit = b.rateLimit == null ? null : TokenBucket.create(b.rateLimit, b.balancerClock);
    this.clock = b.clock;
    this.hedging = Hedging.create(b.hedging, budget, throttle, b.clock);
    this.hedgeByDefault = b.hedgeByDefault;
    this.pickTimeoutNanos = b.pickTimeout.toNanos();
    this.sync = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ballast-http-balancer");
      t.setDaemon(true);
      return t;
    });
    // Outlier ejection judges at refreshes: an interval shorter than the policy's refresh is honoured.
    long refresh = b.outliers.enabled()
        ? Math.min(balancer.refreshIntervalNanos(), b.outliers.interval().toNanos())
        : balancer.refreshIntervalNanos();
    this.refreshTimer = sync.scheduleWithFixedDelay(this::refresh, refresh, refresh, TimeUnit.NANOSECONDS);
  }

  /**
   * A builder with every part at its default: least-loaded round robin, subsets of 20, default
   * health, outlier ejection, throttle and retry budget, no health path.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Makes the service's backends exactly {@code endpoints}: the subset is computed again, backends
   * that left it are dropped (their requests in flight end normally) and new ones are checked.
   * Applied on the balancer's own thread, in the order given.
   *
   * @param endpoints every backend of the service
   * @throws IllegalArgumentException for two endpoints with one key
   */
  public void updateEndpoints(List<HttpEndpoint> endpoints) {
    Map<String, HttpEndpoint> next = new LinkedHashMap<>();
    for (HttpEndpoint endpoint : endpoints) {
      if (next.putIfAbsent(endpoint.key(), endpoint) != null) {
        throw new IllegalArgumentException("endpoints: key '" + endpoint.key() + "' twice (expected: unique keys)");
      }
    }
    Map<String, HttpEndpoint> copy = Map.copyOf(next);
    List<String> order = List.copyOf(next.keySet());
    execute(() -> applyEndpoints(copy, order));
  }

  private void applyEndpoints(Map<String, HttpEndpoint> next, List<String> order) {
    if (closed) {
      return;
    }
    Map<String, HttpEndpoint> ordered = new LinkedHashMap<>();
    for (String key : order) {
      ordered.put(key, next.get(key));
    }
    endpointsByKey = ordered;
    if (ordered.isEmpty()) {
      backends = null;
      subsetRanks = new int[0];
      zonesByKey = Map.of();
      reconcile();
      return;
    }
    BackendSet set = BackendSet.of(ordered.keySet());
    Map<String, String> zones = new HashMap<>();
    if (routeByZone) {
      for (HttpEndpoint endpoint : ordered.values()) {
        if (endpoint.zone() != null) {
          zones.put(endpoint.key(), endpoint.zone());
        }
      }
    }
    backends = set;
    zonesByKey = Map.copyOf(zones);
    subsetRanks = zonesByKey.isEmpty()
        ? subsetter.subsetRanks(set, identity, Math.min(subsetSize, set.size()))
        : ZonedSubsets.subsetRanks(subsetter, set, zonesByKey, identity, zone, subsetSize, remoteSubsetSize);
    reconcile();
  }

  /**
   * Brings the backends in use in line with the subset and its members' availability: a member
   * that refuses connections or is in lame duck gets a stand-in ({@link Replacements}).
   */
  private void reconcile() {
    if (closed) {
      return;
    }
    LinkedHashSet<String> wanted = new LinkedHashSet<>();
    BackendSet set = backends;
    if (set != null) {
      int[] live = Replacements.liveSubset(set, subsetRanks, rank -> !unavailable(set.key(rank)), identity);
      for (int rank : subsetRanks) {
        wanted.add(set.key(rank));
      }
      for (int rank : live) {
        wanted.add(set.key(rank));
      }
    }
    for (Iterator<Map.Entry<String, EndpointHealth>> it = active.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, EndpointHealth> entry = it.next();
      if (!wanted.contains(entry.getKey())) {
        entry.getValue().shutdown();
        it.remove();
      }
    }
    List<EndpointHealth> created = new ArrayList<>();
    for (String key : wanted) {
      EndpointHealth health = active.get(key);
      HttpEndpoint endpoint = endpointsByKey.get(key);
      if (health == null) {
        health = new EndpointHealth(this, endpoint);
        active.put(key, health);
        created.add(health);
      } else {
        health.endpoint = endpoint;
      }
    }
    List<String> keys = List.copyOf(wanted);
    if (!keys.equals(balancerKeys) || !zonesByKey.equals(balancerZones)) {
      balancer.updateSubset(keys, zonesByKey);
      balancerKeys = keys;
      balancerZones = zonesByKey;
    }
    for (EndpointHealth health : created) {
      health.start(balancer.backend(health.key));
    }
    byKey = Map.copyOf(active);
    wakeWaiters();
  }

  private boolean unavailable(String key) {
    EndpointHealth health = active.get(key);
    return health != null && health.unavailable();
  }

  private void refresh() {
    if (closed) {
      return;
    }
    try {
      balancer.refresh();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "ballast: the balancer's refresh failed", e);
    }
    wakeWaiters();
  }

  /**
   * A request of {@code method} with {@code options}; its attempts come from {@link
   * BalancedRequest#nextAttempt()}. Unset options come from the request this thread serves
   * ({@link RequestContext}), then from {@code requestTimeout}.
   *
   * @param method the HTTP method, which says whether the request is idempotent unless the
   *     options do
   * @param options the request's own options
   * @param requestTimeout the HTTP request's own timeout, or null
   * @return the request
   * @throws IllegalArgumentException when the options ask for hedging ({@link
   *     RequestOptions#withHedging}) and the request is not idempotent: its method is none of
   *     RFC 9110's idempotent ones and the options do not mark it idempotent
   */
  public BalancedRequest newRequest(String method, RequestOptions options, Duration requestTimeout) {
    Objects.requireNonNull(options, "options");
    return new BalancedRequest(this, method, options, requestTimeout);
  }

  /**
   * The request header whose value is a request's key, from the policy's settings ({@code
   * consistent_hash}'s {@code requestHashHeader}); an integration reads it and passes the value as
   * {@link RequestOptions#key()}.
   *
   * @return the header's name in lower case, or {@code ""} for none
   */
  public String requestHashHeader() {
    return requestHashHeader;
  }

  /**
   * Sends one of the policy's probes through the transport; the answer, or its absence, reaches
   * {@code receiver} on the thread that receives it. Never throws, never waits.
   */
  private void probe(Backend backend, ProbeReceiver receiver) {
    EndpointHealth health = byKey.get(backend.key());
    if (health == null || closing) {
      // A backend the core knows a moment before this map does: it is probed next time.
      probeFailed(receiver);
      return;
    }
    HttpEndpoint endpoint = health.endpoint;
    CompletableFuture<HeaderLookup> answer;
    try {
      answer = probes.probe(endpoint);
    } catch (RuntimeException e) {
      probeFailed(receiver);
      return;
    }
    answer.whenComplete((headers, failure) -> {
      String value = failure == null && headers != null ? headers.first(BallastHeaders.PROBE) : null;
      if (value == null) {
        probeFailed(receiver);
        return;
      }
      BallastHeaders.ProbeAnswer read;
      try {
        read = BallastHeaders.readProbe(value);
      } catch (MalformedHeaderException e) {
        badHeader(e, endpoint.key());
        probeFailed(receiver);
        return;
      }
      receiver.onProbe(read.requestsInFlight(), read.latencyEstimateNanos());
    });
  }

  private void probeFailed(ProbeReceiver receiver) {
    probesFailed.increment();
    receiver.onProbeFailed();
  }

  // ---- what attempts call ----

  EndpointHealth endpointHealth(String key) {
    return byKey.get(key);
  }

  long pickTimeoutNanos() {
    return pickTimeoutNanos;
  }

  long healthCheckTimeoutNanos() {
    return healthCheckTimeoutNanos;
  }

  HealthCheck healthCheck() {
    return healthCheck;
  }

  boolean activeHealthCheck() {
    return activeHealthCheck;
  }

  Balancer core() {
    return balancer;
  }

  boolean isClosing() {
    return closing;
  }

  void execute(Runnable task) {
    try {
      sync.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed: control-plane work has nothing left to do.
    }
  }

  /** Runs {@code task} on the balancer's thread after {@code delayNanos}; nothing once closed. */
  ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    try {
      return sync.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return null;
    }
  }

  void reconcileLater() {
    execute(this::reconcile);
  }

  void badHeader(MalformedHeaderException e, String from) {
    badHeaders.increment();
    long count = badHeaders.sum();
    if ((count & (count - 1)) == 0) {
      logger.log(Level.WARNING, "ballast: ignored a header from " + from + ", " + e.getMessage() + "; " + count + " so far");
    }
  }

  void badLoadReport() {
    badLoadReports.increment();
  }

  void lameDuckSignal() {
    lameDuckSignals.increment();
  }

  void retrySent() {
    retriesSent.increment();
  }

  void notSent() {
    notSent.increment();
  }

  void wait(BalancedRequest.Waiter waiter) {
    waiters.add(waiter);
    waiting.incrementAndGet();
    // A change between the failed pick and the queueing would otherwise go unheard.
    wakeWaiters();
  }

  /** Capacity may have freed: requests waiting for a backend pick again, on the balancer's thread. */
  void wakeWaiters() {
    if (waiting.get() > 0) {
      execute(this::retryWaiters);
    }
  }

  private void retryWaiters() {
    for (int n = waiters.size(); n > 0; n--) {
      BalancedRequest.Waiter waiter = waiters.poll();
      if (waiter == null) {
        return;
      }
      if (!waiter.retry()) {
        waiters.add(waiter);
      } else {
        waiting.decrementAndGet();
      }
    }
  }

  // ---- for metrics and tests ----

  /**
   * The core balancer, for its counters and each backend's state.
   *
   * @return the core balancer
   */
  public Balancer balancer() {
    return balancer;
  }

  /**
   * The adaptive throttle of first attempts, or null when off.
   *
   * @return the throttle
   */
  public AdaptiveThrottle throttle() {
    return throttle;
  }

  /**
   * The retry budget, or null when off.
   *
   * @return the budget
   */
  public RetryBudget retryBudget() {
    return budget;
  }

  /**
   * The client's hedged requests: their settings, the running delay, and the hedges sent, won and
   * refused ({@link Hedging#hedgesSent()} and the others).
   *
   * @return the hedging state, there whether or not any request is hedged
   */
  @Experimental("hedged HTTP requests are new")
  public Hedging hedging() {
    return hedging;
  }

  /**
   * The subset as last computed: the keys of the backends this client uses, stand-ins included.
   *
   * @return the keys in use
   */
  public List<String> backendsInUse() {
    return List.copyOf(byKey.keySet());
  }

  /**
   * Probes of {@code prequal_probing} that brought no usable answer: no answer, a status other
   * than 2xx, no {@value BallastHeaders#PROBE} header or a malformed one (also counted in {@link
   * #badHeaders()}). The policy then picks without them, by power of two choices on this client's
   * own requests in flight.
   *
   * @return the count; 0 for a policy that does not probe
   */
  public long probesFailed() {
    return probesFailed.sum();
  }

  /**
   * Response headers of Ballast's and ORCA's that were malformed, and so ignored.
   *
   * @return the count
   */
  public long badHeaders() {
    return badHeaders.sum();
  }

  /**
   * Load reports read but rejected by the balancer (a field out of range).
   *
   * @return the count
   */
  public long badLoadReports() {
    return badLoadReports.sum();
  }

  /**
   * Answers that carried the lame duck signal.
   *
   * @return the count
   */
  public long lameDuckSignals() {
    return lameDuckSignals.sum();
  }

  /**
   * Retries sent (attempts after the first).
   *
   * @return the count
   */
  public long retriesSent() {
    return retriesSent.sum();
  }

  /**
   * Attempts not sent: throttled, over the rate limit, out of budget, without a backend.
   *
   * @return the count
   */
  public long attemptsNotSent() {
    return notSent.sum();
  }

  /** Stops the health checks and the refresh; requests still waiting for a backend fail. */
  @Override
  public void close() {
    closing = true;
    execute(() -> {
      closed = true;
      refreshTimer.cancel(false);
      for (EndpointHealth health : active.values()) {
        health.shutdown();
      }
      active.clear();
      byKey = Map.of();
      BalancedRequest.Waiter waiter;
      while ((waiter = waiters.poll()) != null) {
        waiting.decrementAndGet();
        waiter.closed();
      }
      // Pending checks and waits would otherwise keep the thread until they are due.
      sync.shutdownNow();
    });
    sync.shutdown();
  }

  /** Settings of an {@link HttpBalancer}; each setter validates. */
  public static final class Builder {
    private Policy policy = Policy.leastLoadedRoundRobin();
    private HealthConfig health = HealthConfig.defaults();
    private OutlierConfig outliers = OutlierConfig.defaults();
    private ZoneConfig zoneRouting = ZoneConfig.defaults();
    private String zone;
    private Subsetter subsetter;
    private int subsetSize = 20;
    private int remoteSubsetSize = -1;
    private ClientIdentity identity;
    private HealthCheck healthCheck;
    private Duration healthCheckTimeout = HEALTH_CHECK_TIMEOUT.defaultValue();
    private ThrottleConfig throttle = ThrottleConfig.defaults();
    private RetryPolicy retry = RetryPolicy.defaults();
    private boolean retryBudget = true;
    private TokenBucketConfig rateLimit;
    private NanoClock clock = NanoClock.system();
    private NanoClock balancerClock = NanoClock.cached();
    private Duration pickTimeout = PICK_TIMEOUT.defaultValue();
    private ProbeTransport probes;
    private HedgingConfig hedging = HedgingConfig.defaults();
    private boolean hedgeByDefault;

    Builder() {}

    /**
     * The picking policy; least-loaded round robin by default.
     *
     * @param policy the policy
     * @return this builder
     */
    public Builder policy(Policy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Flow control, health-check intervals, idle detection and warm-up.
     *
     * @param config the health settings
     * @return this builder
     */
    public Builder health(HealthConfig config) {
      this.health = Objects.requireNonNull(config, "health");
      return this;
    }

    /**
     * Outlier ejection; on with its defaults, {@link OutlierConfig#disabled()} turns it off.
     *
     * @param config the settings
     * @return this builder
     */
    public Builder outlierEjection(OutlierConfig config) {
      this.outliers = Objects.requireNonNull(config, "outlierEjection");
      return this;
    }

    /**
     * The client's own zone: backends whose {@link HttpEndpoint#zone()} is the same are preferred,
     * as {@link #zoneRouting} says. Without it the subset is one pool.
     *
     * @param zone the zone
     * @return this builder
     */
    public Builder zone(String zone) {
      Objects.requireNonNull(zone, "zone");
      if (zone.isEmpty()) {
        throw new IllegalArgumentException("zone: \"\" (expected: a zone name, or no zone set)");
      }
      this.zone = zone;
      return this;
    }

    /**
     * How the client routes by zone (docs/zones.md).
     *
     * @param config the zone routing settings
     * @return this builder
     */
    public Builder zoneRouting(ZoneConfig config) {
      this.zoneRouting = Objects.requireNonNull(config, "zoneRouting");
      return this;
    }

    /**
     * The subsetting algorithm and size: {@code orthogonal_lots} for a client with an index,
     * {@code rendezvous} without one, subsets of 20, by default. A service with fewer backends is
     * used whole.
     *
     * @param subsetter the algorithm
     * @param subsetSize how many backends (of the client's zone, with zones) the subset holds, 1..10000
     * @return this builder
     */
    public Builder subsetting(Subsetter subsetter, int subsetSize) {
      this.subsetter = Objects.requireNonNull(subsetter, "subsetter");
      this.subsetSize = SubsetConfig.SUBSET_SIZE.check(subsetSize);
      return this;
    }

    /**
     * Subsetting as {@code config} declares it: the client's identity (its index, else anonymous
     * with a random seed), the algorithm for that identity, and the subset sizes.
     *
     * @param config the subsetting settings
     * @return this builder
     * @throws IllegalArgumentException for an algorithm that needs a client index, without one
     */
    public Builder subsetting(SubsetConfig config) {
      Objects.requireNonNull(config, "subsetting");
      ClientIdentity id = config.identity(ThreadLocalRandom.current().nextLong());
      this.subsetter = config.subsetter(id);
      this.identity = id;
      this.subsetSize = config.subsetSize();
      this.remoteSubsetSize = config.remoteSubsetSize();
      return this;
    }

    /**
     * With zones, how many backends of each other zone the subset holds (default: the subset size).
     *
     * @param size 0..10000
     * @return this builder
     */
    public Builder remoteSubsetSize(int size) {
      this.remoteSubsetSize = SubsetConfig.REMOTE_SUBSET_SIZE.check(size);
      return this;
    }

    /**
     * Who this client is, for subsetting; anonymous (a random seed) by default.
     *
     * @param identity the client's identity
     * @return this builder
     */
    public Builder identity(ClientIdentity identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /**
     * An active health check of every backend at the health-check interval (by default none:
     * backends are checked by TCP connects while they do not serve).
     *
     * @param check the check, such as an HTTP request on a health path
     * @return this builder
     */
    public Builder healthCheck(HealthCheck check) {
      this.healthCheck = Objects.requireNonNull(check, "healthCheck");
      return this;
    }

    /**
     * How {@code prequal_probing}'s probes reach a backend; that policy needs one, the others
     * never call it. {@link BallastHttpClient} gives one over its own client unless set here.
     *
     * @param transport sends a probe and hands back the answer's headers
     * @return this builder
     */
    public Builder probes(ProbeTransport transport) {
      this.probes = Objects.requireNonNull(transport, "probes");
      return this;
    }

    /** {@link #probes} unless one was given. */
    Builder probesIfAbsent(ProbeTransport transport) {
      if (probes == null) {
        probes = transport;
      }
      return this;
    }

    /**
     * How long a health check or TCP connect check may take. Default 5 s; 1 ms..1 min.
     *
     * @param timeout the timeout
     * @return this builder
     */
    public Builder healthCheckTimeout(Duration timeout) {
      this.healthCheckTimeout = HEALTH_CHECK_TIMEOUT.check(timeout);
      return this;
    }

    /**
     * The adaptive throttle of first attempts; null turns it off. On with its defaults.
     *
     * @param config the throttle's settings, or null
     * @return this builder
     */
    public Builder throttle(ThrottleConfig config) {
      this.throttle = config;
      return this;
    }

    /**
     * Retries: how many attempts, after which answers, the backoff, the budget's settings and the
     * overload retry floor.
     *
     * @param policy the retry policy
     * @return this builder
     */
    public Builder retry(RetryPolicy policy) {
      this.retry = Objects.requireNonNull(policy, "retry");
      return this;
    }

    /**
     * Whether retries are capped by the retry budget ({@link RetryPolicy#budget()}). On by default.
     *
     * @param enabled whether the budget applies
     * @return this builder
     */
    public Builder retryBudget(boolean enabled) {
      this.retryBudget = enabled;
      return this;
    }

    /**
     * The client's own rate limit, on every attempt; none by default.
     *
     * @param config the token bucket, or null
     * @return this builder
     */
    public Builder rateLimit(TokenBucketConfig config) {
      this.rateLimit = config;
      return this;
    }

    /**
     * How hedged requests are hedged: the delay before a hedge (fixed, or the running percentile
     * of first attempts' latency), and how many attempts may be out at once. Default {@link
     * HedgingConfig#defaults()}. Which requests are hedged is their own choice ({@link
     * RequestOptions#withHedging}) or {@link #hedgeByDefault}'s; hedges are paid from the retry
     * budget, when it is on ({@link #retryBudget}).
     *
     * @param config the settings, validated by {@link HedgingConfig}
     * @return this builder
     */
    @Experimental("hedged HTTP requests are new")
    public Builder hedging(HedgingConfig config) {
      this.hedging = Objects.requireNonNull(config, "hedging");
      return this;
    }

    /**
     * Whether an idempotent request whose options say nothing of hedging is hedged. Off by
     * default; a request that is not idempotent is never hedged by default.
     *
     * @param enabled whether to hedge idempotent requests unless their options say otherwise
     * @return this builder
     */
    @Experimental("hedged HTTP requests are new")
    public Builder hedgeByDefault(boolean enabled) {
      this.hedgeByDefault = enabled;
      return this;
    }

    /**
     * How long a request without a deadline waits for a backend when none can take it now (all
     * connecting, or at their limit). Default 10 s; 0..1 h.
     *
     * @param timeout the longest wait
     * @return this builder
     */
    public Builder pickTimeout(Duration timeout) {
      this.pickTimeout = PICK_TIMEOUT.check(timeout);
      return this;
    }

    /**
     * The clock of latencies and deadlines ({@link NanoClock#system()}) and the one the balancer's
     * statistics and windows read ({@link NanoClock#cached()}).
     *
     * @param exact latencies and deadlines
     * @param balancer the balancer's statistics
     * @return this builder
     */
    public Builder clocks(NanoClock exact, NanoClock balancer) {
      this.clock = Objects.requireNonNull(exact, "clock");
      this.balancerClock = Objects.requireNonNull(balancer, "balancerClock");
      return this;
    }

    /**
     * Builds the balancer; it starts its own thread for control-plane work.
     *
     * @return the balancer, with no backends until {@link HttpBalancer#updateEndpoints}
     * @throws IllegalArgumentException for an index-based subsetter without a client index, or a
     *     policy that probes its backends ({@code prequal_probing}), which needs a probe transport
     */
    public HttpBalancer build() {
      return new HttpBalancer(this);
    }
  }
}
