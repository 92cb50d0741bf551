package dev.ballast.grpc;

import static io.grpc.ConnectivityState.CONNECTING;
import static io.grpc.ConnectivityState.READY;
import static io.grpc.ConnectivityState.TRANSIENT_FAILURE;

import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.pick.Balancer;
import dev.ballast.subset.BackendSet;
import dev.ballast.subset.Replacements;
import dev.ballast.subset.ZonedSubsets;
import dev.ballast.time.NanoClock;
import io.grpc.Attributes;
import io.grpc.ChannelLogger.ChannelLogLevel;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import io.grpc.SynchronizationContext.ScheduledHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One channel's {@code ballast} balancer. gRPC serializes every callback on the channel's {@link
 * SynchronizationContext}; so does this class for its own events (health answers, lame duck
 * signals, timers), so all its fields except the atomics are confined to that context.
 *
 * <p>It keeps a subchannel per subset member, whatever the member's state, so that it notices
 * recovery; plus one per stand-in from {@link Replacements#liveSubset} while members are
 * unavailable. The core {@link Balancer} tracks all of them; its policy skips those that cannot
 * take requests.
 */
final class BallastLoadBalancer extends LoadBalancer {
  private final Helper helper;
  private final SynchronizationContext sync;
  /** Measures call latencies: exact. */
  private final NanoClock clock;
  /** The balancer's time-decayed statistics and windows: cheap to read on every pick. */
  private final NanoClock balancerClock;
  private final Supplier<BallastConfig> defaultConfig;
  /**
   * The source of every random choice of this channel's balancers, so that a run can be repeated
   * (tests); null in production, where each picking thread draws from its own source.
   */
  private final RandomGenerator random;
  private final AtomicBoolean callsWaitForCapacity = new AtomicBoolean();
  private final Runnable publish = this::publishPicker;

  private BallastConfig config;
  private Balancer balancer;
  /** Sends prequal_probing's probes; null for the other policies. */
  private SubchannelProbeSender probes;
  // Read by tracers on any thread.
  private volatile ClientOverload overload = new ClientOverload(ClientOverload.Settings.defaults(), NanoClock.cached());
  private Map<String, EquivalentAddressGroup> addressesByKey = Map.of();
  /** Each backend's zone, from its addresses or the config (docs/zones.md); empty without zones. */
  private Map<String, String> zonesByKey = Map.of();
  /** The zones the balancer was last given with its keys. */
  private Map<String, String> balancerZones = Map.of();
  private BackendSet backends;
  private int[] subsetRanks = new int[0];
  /** The keys the balancer was last given, in order. */
  private List<String> balancerKeys = List.of();
  private final Map<String, Endpoint> endpoints = new LinkedHashMap<>();
  private ScheduledHandle refreshTimer;
  private boolean shutdown;
  /** Who follows this channel's balancers ({@link BallastClients#track}); null when no one does. */
  private final BallastClients clients;
  private final long channel;
  /** The balancer as observers see it; null before the first resolution. */
  private BallastClients.Client client;
  private volatile int replacementsInUse;

  BallastLoadBalancer(
      Helper helper, NanoClock clock, NanoClock balancerClock, Supplier<BallastConfig> defaultConfig) {
    this(helper, clock, balancerClock, null, defaultConfig);
  }

  /** A balancer whose random choices all come from {@code random}, so that its picks can be repeated. */
  BallastLoadBalancer(
      Helper helper,
      NanoClock clock,
      NanoClock balancerClock,
      RandomGenerator random,
      Supplier<BallastConfig> defaultConfig) {
    this.helper = helper;
    this.sync = helper.getSynchronizationContext();
    this.clock = clock;
    this.balancerClock = balancerClock;
    this.random = random;
    this.defaultConfig = defaultConfig;
    this.clients = BallastClients.of(helper);
    this.channel = clients == null ? 0 : clients.nextChannel();
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    Object parsed = resolved.getLoadBalancingPolicyConfig();
    BallastConfig next =
        parsed instanceof BallastConfig ? (BallastConfig) parsed : config != null ? config : defaultConfig.get();
    Map<String, EquivalentAddressGroup> byKey = byKey(resolved.getAddresses());
    if (byKey.isEmpty()) {
      Status error = Status.UNAVAILABLE.withDescription("ballast: the name resolver returned no addresses");
      handleNameResolutionError(error);
      return error;
    }
    if (balancer == null || !next.sameBalancerAs(config)) {
      // A new policy or health setting means new per-backend statistics: start over. A new subset
      // size, algorithm or identity only changes the subset, which reconcile() below applies.
      resetBalancer(next);
    }
    config = next;
    BackendSet set;
    int[] ranks;
    Map<String, String> zones = zonesOf(byKey, config);
    try {
      set = BackendSet.of(byKey.keySet());
      ranks = zones.isEmpty()
          ? config.subsetter().subsetRanks(set, config.identity(), Math.min(config.subsetSize(), set.size()))
          : zonedSubsetRanks(set, zones, config);
    } catch (IllegalArgumentException e) {
      // Validation should have caught it; the channel gets the reason instead of an exception.
      Status error = Status.UNAVAILABLE.withDescription("ballast: cannot compute the subset: " + e.getMessage());
      handleNameResolutionError(error);
      return error;
    }
    addressesByKey = byKey;
    zonesByKey = zones;
    backends = set;
    subsetRanks = ranks;
    reconcile();
    return Status.OK;
  }

  private Map<String, EquivalentAddressGroup> byKey(List<EquivalentAddressGroup> groups) {
    Map<String, EquivalentAddressGroup> out = new LinkedHashMap<>();
    for (EquivalentAddressGroup group : groups) {
      if (group.getAddresses().isEmpty()) {
        continue;
      }
      String key = keyOf(group);
      if (out.putIfAbsent(key, group) != null) {
        helper
            .getChannelLogger()
            .log(ChannelLogLevel.WARNING, "ballast: backend key {0} appears twice; using its first addresses", key);
      }
    }
    return out;
  }

  /**
   * Each backend's zone when the client routes by zone (it has a zone of its own and routing is
   * on): the resolver's {@link BallastLoadBalancerProvider#ZONE} attribute, else gRPC's locality
   * name (the xDS resolver's; its {@code zone} part when it has one), else the config's {@code
   * zones} map. Empty when the client does not route by zone or no backend has a zone.
   */
  static Map<String, String> zonesOf(Map<String, EquivalentAddressGroup> byKey, BallastConfig config) {
    if (config.zone() == null || !config.zoneRouting().enabled()) {
      return Map.of();
    }
    Map<String, String> zones = new HashMap<>();
    for (Map.Entry<String, EquivalentAddressGroup> entry : byKey.entrySet()) {
      String zone = zoneOf(entry.getValue());
      if (zone == null) {
        zone = config.zones().get(entry.getKey());
      }
      if (zone != null) {
        zones.put(entry.getKey(), zone);
      }
    }
    return Map.copyOf(zones);
  }

  private static String zoneOf(EquivalentAddressGroup group) {
    String zone = group.getAttributes().get(BallastLoadBalancerProvider.ZONE);
    if (zone != null && !zone.isEmpty()) {
      return zone;
    }
    Attributes.Key<String> locality = Locality.KEY;
    String name = locality == null ? null : group.getAttributes().get(locality);
    return name == null || name.isEmpty() ? null : Locality.zone(name);
  }

  /**
   * gRPC's locality attribute, where the gRPC version has it (read once, so that older versions
   * without it still load this class), and the zone a locality name holds.
   */
  static final class Locality {
    static final Attributes.Key<String> KEY = key();
    private static final java.util.regex.Pattern ZONE_PART = java.util.regex.Pattern.compile("zone=\"([^\"]*)\"");

    private Locality() {}

    @SuppressWarnings("unchecked")
    private static Attributes.Key<String> key() {
      try {
        return (Attributes.Key<String>) EquivalentAddressGroup.class.getField("ATTR_LOCALITY_NAME").get(null);
      } catch (ReflectiveOperationException | ClassCastException e) {
        return null;
      }
    }

    /** The {@code zone} of an xDS locality name ({@code {region="r", zone="z", sub_zone="s"}}), else the name. */
    static String zone(String name) {
      java.util.regex.Matcher matcher = ZONE_PART.matcher(name);
      return matcher.find() && !matcher.group(1).isEmpty() ? matcher.group(1) : name;
    }
  }

  /**
   * The subset with zones: the subsetter runs over each zone's backends on its own, taking {@code
   * subsetSize} of the client's zone and {@code remoteSubsetSize} of each other zone, so that the
   * client has backends to spill into and to fail over to. Backends without a zone are one zone.
   */
  static int[] zonedSubsetRanks(BackendSet set, Map<String, String> zones, BallastConfig config) {
    return ZonedSubsets.subsetRanks(
        config.subsetter(), set, zones, config.identity(), config.zone(), config.subsetSize(), config.remoteSubsetSize());
  }

  /** The resolver's stable name if it gave one, else the first address as {@code host:port}. */
  static String keyOf(EquivalentAddressGroup group) {
    String named = group.getAttributes().get(BallastLoadBalancerProvider.BACKEND_KEY);
    if (named != null && !named.isEmpty()) {
      return named;
    }
    SocketAddress address = group.getAddresses().get(0);
    if (address instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) address;
      String host = inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
    }
    return address.toString();
  }

  private void resetBalancer(BallastConfig next) {
    for (Endpoint endpoint : endpoints.values()) {
      endpoint.shutdown();
    }
    endpoints.clear();
    if (refreshTimer != null) {
      refreshTimer.cancel();
    }
    if (probes != null) {
      probes.update(Map.of());
    }
    probes = next.probing() == null ? null : new SubchannelProbeSender(next.probing().maxAge());
    Balancer.Builder builder = Balancer.builder(next.policy())
        .health(next.health())
        .outlierEjection(next.outliers())
        .clock(balancerClock)
        .zoneRouting(next.zoneRouting());
    if (next.zone() != null) {
      builder.zone(next.zone());
    }
    if (random != null) {
      builder.reproducibleFrom(random);
    }
    // Without a random source the production balancer: each thread that picks draws from its own.
    balancer = (probes == null ? builder : builder.probes(probes)).build();
    balancerKeys = List.of();
    balancerZones = Map.of();
    // Throttle and budget belong to the target: they start over with its balancer.
    overload = new ClientOverload(next.overload(), balancerClock);
    if (clients != null) {
      if (client != null) {
        clients.closed(client);
      }
      client = new BallastClients.Client(
          String.valueOf(helper.getAuthority()), channel, balancer, overload.throttle, overload.budget, overload.rateLimit,
          () -> replacementsInUse);
      clients.opened(client);
    }
    scheduleRefresh();
  }

  private void scheduleRefresh() {
    refreshTimer =
        sync.schedule(this::refresh, balancer.refreshIntervalNanos(), TimeUnit.NANOSECONDS, scheduler());
  }

  private void refresh() {
    if (shutdown) {
      return;
    }
    balancer.refresh();
    scheduleRefresh();
  }

  /**
   * Brings the subchannels in line with the subset and its members' availability, then publishes
   * a picker. Runs after every resolution and every change of a backend's availability.
   */
  void reconcile() {
    if (shutdown || backends == null) {
      return;
    }
    BackendSet set = backends;
    int[] live =
        Replacements.liveSubset(set, subsetRanks, rank -> !unavailable(set.key(rank)), config.identity());
    LinkedHashSet<String> wanted = new LinkedHashSet<>();
    for (int rank : subsetRanks) {
      wanted.add(set.key(rank));
    }
    for (int rank : live) {
      wanted.add(set.key(rank));
    }
    for (Iterator<Map.Entry<String, Endpoint>> it = endpoints.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Endpoint> entry = it.next();
      if (!wanted.contains(entry.getKey())) {
        entry.getValue().shutdown();
        it.remove();
      }
    }
    List<Endpoint> created = new ArrayList<>();
    for (String key : wanted) {
      EquivalentAddressGroup addresses = addressesByKey.get(key);
      Endpoint endpoint = endpoints.get(key);
      if (endpoint == null) {
        endpoint =
            new Endpoint(
                this,
                key,
                addresses,
                helper.createSubchannel(CreateSubchannelArgs.newBuilder().setAddresses(addresses).build()));
        endpoints.put(key, endpoint);
        created.add(endpoint);
      } else {
        endpoint.updateAddresses(addresses);
      }
    }
    replacementsInUse = wanted.size() - subsetRanks.length;
    List<String> keys = List.copyOf(wanted);
    if (!keys.equals(balancerKeys) || !zonesByKey.equals(balancerZones)) {
      // Only a changed subset gets a new picker: one made at every health answer would start
      // round robin over, empty prequal_probing's pool and drop every other picker's own state.
      balancer.updateSubset(keys, zonesByKey);
      balancerKeys = keys;
      balancerZones = zonesByKey;
    }
    for (Endpoint endpoint : created) {
      endpoint.start(balancer.backend(endpoint.key));
    }
    publishPicker();
  }

  private boolean unavailable(String key) {
    Endpoint endpoint = endpoints.get(key);
    return endpoint != null && endpoint.unavailable();
  }

  private void publishPicker() {
    if (shutdown || balancer == null) {
      return;
    }
    int accepting = 0;
    int connecting = 0;
    int lameDuck = 0;
    Map<Backend, Endpoint> byBackend = new HashMap<>();
    Endpoint[] all = new Endpoint[endpoints.size()];
    int i = 0;
    for (Endpoint endpoint : endpoints.values()) {
      all[i++] = endpoint;
      byBackend.put(endpoint.backend(), endpoint);
      BackendState state = endpoint.backend().state();
      if (state.acceptsNewRequests()) {
        accepting++;
      } else if (state == BackendState.CONNECTING) {
        connecting++;
      } else if (state == BackendState.LAME_DUCK) {
        lameDuck++;
      }
    }
    ConnectivityState state;
    PickResult unavailable;
    if (accepting > 0 || connecting > 0) {
      state = accepting > 0 ? READY : CONNECTING;
      // Wait for the next picker: a backend is about to become available.
      unavailable = PickResult.withNoResult();
    } else {
      state = TRANSIENT_FAILURE;
      unavailable =
          PickResult.withError(
              Status.UNAVAILABLE.withDescription(
                  "ballast: none of " + all.length + " backends accepts requests (" + lameDuck
                      + " in lame duck, the others refusing connections)"));
    }
    if (probes != null) {
      probes.update(byBackend);
    }
    helper.updateBalancingState(state, new BallastPicker(this, balancer, byBackend, all, unavailable, overload));
  }

  /** A pick found every available backend at its active-request limit; the call waits in gRPC's queue. */
  void waitForCapacity(Endpoint[] all) {
    callsWaitForCapacity.set(true);
    // A request may have ended between the failed pick and the flag: look once more.
    for (Endpoint endpoint : all) {
      if (endpoint.backend().acceptsNewRequests()) {
        requestEnded();
        return;
      }
    }
  }

  /** Called on the data path whenever a request ends: queued calls get a new picker only if some wait. */
  void requestEnded() {
    if (callsWaitForCapacity.get() && callsWaitForCapacity.compareAndSet(true, false)) {
      sync.execute(publish);
    }
  }

  /** A backend's availability may have changed outside the synchronization context. */
  void availabilityChanged() {
    sync.execute(this::reconcile);
  }

  SynchronizationContext sync() {
    return sync;
  }

  ScheduledExecutorService scheduler() {
    return helper.getScheduledExecutorService();
  }

  NanoClock clock() {
    return clock;
  }

  BallastConfig config() {
    return config;
  }

  /** The target's client-side overload protection. */
  ClientOverload overload() {
    return overload;
  }

  /** The core balancer, for tests in this package. */
  Balancer balancer() {
    return balancer;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (shutdown) {
      return;
    }
    for (Endpoint endpoint : endpoints.values()) {
      if (endpoint.backend().state().acceptsNewRequests()) {
        // Keep serving from the last good resolution.
        return;
      }
    }
    helper.updateBalancingState(TRANSIENT_FAILURE, new FailingPicker(error));
  }

  @Override
  public void shutdown() {
    shutdown = true;
    if (client != null) {
      clients.closed(client);
      client = null;
    }
    if (refreshTimer != null) {
      refreshTimer.cancel();
    }
    if (probes != null) {
      probes.update(Map.of());
    }
    for (Endpoint endpoint : endpoints.values()) {
      endpoint.shutdown();
    }
    endpoints.clear();
  }

  private static final class FailingPicker extends SubchannelPicker {
    private final PickResult result;

    FailingPicker(Status error) {
      this.result = PickResult.withError(error);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      return result;
    }
  }
}
