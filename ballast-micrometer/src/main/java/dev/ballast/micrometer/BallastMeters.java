package dev.ballast.micrometer;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.RequestOutcome;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.AdmissionLimiter;
import dev.ballast.overload.Criticality;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.TokenBucket;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.PickStatus;
import dev.ballast.pick.PolicyStatistic;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Binds Ballast's core objects to a Micrometer {@link MeterRegistry}: one call per object, which
 * returns the {@link MeterBinding} that removes its meters. Every meter reads the object's own
 * counters and fields when the registry asks (gauges and function counters): binding adds no work,
 * no allocation and no atomic operation to picks or to the outcome calls. docs/metrics.md lists
 * every meter.
 *
 * <p>Two objects bound with the same tags would share meter names and tags, and Micrometer would
 * keep the first one's meters: give each balancer (each limiter, throttle, budget) tags of its own,
 * such as its target.
 */
public final class BallastMeters {
  static final String PREFIX = "ballast.";

  private BallastMeters() {}

  /**
   * A balancer's meters: picks, outcomes, in-flight requests, state, transitions and ejections per
   * backend (tagged {@code backend}), the policy's per-backend number, failed picks by reason, the
   * subset's size and churn, rejected inputs, the backends ejected now and whether the subset
   * panics, and with zone routing the picks sent across zones and the share spilled. All tagged
   * {@code policy} and with {@code tags}. Per-backend
   * meters follow the subset: they appear when a backend joins and leave when it leaves.
   *
   * @param balancer the balancer, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(Balancer balancer, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(balancer, "balancer");
    Tags common = Tags.of(tags).and("policy", balancer.policy().name());
    MeterBinding binding = new MeterBinding(registry, balancer);
    for (PickStatus status : PickStatus.values()) {
      if (status != PickStatus.PICKED) {
        binding.counter("picks.failed", balancer, b -> b.failedPicks(status),
            "Picks that found no backend, by reason", common.and("reason", lower(status)));
      }
    }
    binding.gauge("subset.size", balancer, b -> b.health().backends().size(), "Backends in the balancer's subset", common);
    String churn = "Backends that joined or left the subset (connection churn)";
    binding.counter("subset.changes", balancer, Balancer::subsetAdditions, churn, common.and("change", "joined"));
    binding.counter("subset.changes", balancer, Balancer::subsetRemovals, churn, common.and("change", "left"));
    binding.counter("load.reports.rejected", balancer, Balancer::rejectedLoadReports,
        "Load reports rejected for a negative, NaN or infinite field", common);
    binding.counter("latencies.negative", balancer, Balancer::negativeLatencies,
        "Outcomes reported with a negative latency, counted as zero", common);
    binding.counter("probes.lost", balancer, Balancer::lostProbeAnswers, "Probe answers the probe pool could not store",
        common);
    binding.gauge("outlier.ejected", balancer, b -> b.health().ejectedBackends(),
        "Backends outlier ejection holds out of rotation or on probation now", common);
    binding.gauge("outlier.panic", balancer, b -> b.health().panicking() ? 1 : 0,
        "1 while too few backends are available and in rotation, so that every ejection is lifted", common);
    if (balancer.zone() != null) {
      // Zone routing's (docs/zones.md): the share of picks sent across zones is this over picks.
      Tags zoned = common.and("zone", balancer.zone());
      binding.counter("picks.cross.zone", balancer, Balancer::crossZonePicks,
          "Picks sent to a backend in another zone than the client's", zoned);
      binding.gauge("zone.spill.share", balancer, Balancer::zoneSpillShare,
          "The share of picks the spill controller sends to other zones now (1 while the client's zone has no backend available)",
          zoned);
    }

    BackendMeters perBackend = new BackendMeters(binding, balancer, common);
    // The balancer holds the listener; the binding holds both weakly, so neither keeps the other alive.
    WeakReference<Balancer> balancerRef = new WeakReference<>(balancer);
    WeakReference<BackendMeters> listenerRef = new WeakReference<>(perBackend);
    balancer.addSubsetListener(perBackend);
    binding.onClose(() -> {
      Balancer b = balancerRef.get();
      BackendMeters listener = listenerRef.get();
      if (b != null && listener != null) {
        b.removeSubsetListener(listener);
      }
    });
    return binding;
  }

  /** The meters of one backend, added and removed as the subset changes. */
  private static final class BackendMeters implements Consumer<List<Backend>> {
    private final MeterBinding binding;
    // The balancer holds this listener; a weak reference back keeps the pair collectable by the
    // same rule as the gauges (a strong one would too, as a cycle, but says less clearly who owns whom).
    private final WeakReference<Balancer> balancer;
    private final PolicyStatistic statistic;
    private final Tags common;
    private final Map<Backend, List<Meter>> bound = new IdentityHashMap<>();

    BackendMeters(MeterBinding binding, Balancer balancer, Tags common) {
      this.binding = binding;
      this.balancer = new WeakReference<>(balancer);
      this.statistic = balancer.policyStatistic();
      this.common = common;
    }

    // Called on the balancer's control plane, serialized.
    @Override
    public synchronized void accept(List<Backend> backends) {
      Map<Backend, List<Meter>> next = new IdentityHashMap<>();
      for (Backend backend : backends) {
        List<Meter> meters = bound.remove(backend);
        next.put(backend, meters != null ? meters : register(backend));
      }
      for (List<Meter> gone : bound.values()) {
        gone.forEach(binding::remove);
      }
      bound.clear();
      bound.putAll(next);
    }

    private List<Meter> register(Backend backend) {
      Tags tags = common.and("backend", backend.key());
      List<Meter> meters = new ArrayList<>();
      meters.add(binding.counter("picks", backend, Backend::requestsStarted, "Requests the balancer sent to the backend",
          tags));
      meters.add(binding.gauge("requests.in.flight", backend, Backend::activeRequests, "Requests in flight to the backend",
          tags));
      for (RequestOutcome outcome : RequestOutcome.values()) {
        meters.add(binding.counter("requests.ended", backend, b -> b.requestsEnded(outcome),
            "Requests that ended, by outcome", tags.and("outcome", lower(outcome))));
      }
      meters.add(binding.counter("requests.unmatched.ends", backend, Backend::unmatchedEnds,
          "Ends reported while nothing was in flight (a request ended twice)", tags));
      meters.add(binding.counter("backend.ejections", backend, Backend::ejections,
          "Times outlier ejection took the backend out of rotation", tags));
      for (BackendState state : BackendState.values()) {
        Tags stateTags = tags.and("state", lower(state));
        meters.add(binding.gauge("backend.state", backend, b -> b.state() == state ? 1 : 0,
            "1 for the backend's current state, 0 for the others", stateTags));
        meters.add(binding.counter("backend.transitions", backend, b -> b.transitionsTo(state),
            "Moves of the backend into each state", stateTags));
      }
      Balancer owner = balancer.get();
      if (statistic != PolicyStatistic.NONE && owner != null) {
        String key = backend.key();
        meters.add(binding.gauge("policy." + statistic.metricName(), statistic.unit().isEmpty() ? null : statistic.unit(),
            owner, b -> b.policyStatistic(key), statistic.description(), tags));
      }
      return meters;
    }
  }


  /**
   * An adaptive throttle's meters: rejection probability and local rejections per criticality.
   *
   * @param throttle the throttle, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(AdaptiveThrottle throttle, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(throttle, "throttle");
    MeterBinding binding = new MeterBinding(registry, throttle);
    for (Criticality c : Criticality.values()) {
      Tags t = Tags.of(tags).and("criticality", lower(c));
      binding.gauge("throttle.probability", throttle, th -> th.rejectionProbability(c),
          "Probability that the client rejects a new request locally", t);
      binding.counter("throttle.rejected", throttle, th -> th.rejected(c),
          "Requests rejected locally by the adaptive throttle", t);
    }
    return binding;
  }

  /** How many callers shed the most get a meter each by default. */
  @Experimental
  public static final int DEFAULT_TOP_CALLERS = 10;
  /** The most callers that may get a meter each. */
  @Experimental
  public static final int MAX_TOP_CALLERS = 100;
  /** How often the set of per-caller meters follows the callers shed the most, by default. */
  @Experimental
  public static final Duration DEFAULT_CALLERS_REFRESH = Duration.ofSeconds(10);
  private static final Duration MIN_CALLERS_REFRESH = Duration.ofMillis(100);
  private static final Duration MAX_CALLERS_REFRESH = Duration.ofHours(1);

  /**
   * A server admission limiter's meters: limit, in flight, whether it enforces, sheds per
   * criticality, and with {@linkplain dev.ballast.overload.FairAdmissionConfig fair admission} the
   * callers tracked, the overflows and the sheds of the {@value #DEFAULT_TOP_CALLERS} callers shed
   * the most, refreshed every 10 seconds ({@link #bind(AdmissionLimiter, MeterRegistry, Iterable, int,
   * Duration)}).
   *
   * @param limiter the limiter, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(AdmissionLimiter limiter, MeterRegistry registry, Iterable<Tag> tags) {
    return bind(limiter, registry, tags, DEFAULT_TOP_CALLERS, DEFAULT_CALLERS_REFRESH);
  }

  /**
   * {@link #bind(AdmissionLimiter, MeterRegistry, Iterable)} with the number of callers that get a
   * shed counter each ({@code ballast.limiter.caller.shed}, tagged {@code caller}) and how often that
   * set follows {@link AdmissionLimiter#callersMostShed(int)}. However many callers the server has,
   * at most {@code topCallers} such meters exist at once: a caller that leaves the top loses its
   * meter, one that enters it gains one. A shared daemon thread does the refreshes; closing the
   * binding stops them.
   *
   * @param limiter the limiter, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @param topCallers how many callers shed the most get a meter each, 0..{@value #MAX_TOP_CALLERS};
   *     0 for none
   * @param refreshEvery how often the set of per-caller meters is refreshed, 100 ms to 1 hour
   * @return the binding; closing it removes the meters from the registry
   * @throws IllegalArgumentException for {@code topCallers} or {@code refreshEvery} out of range
   */
  @Experimental
  public static MeterBinding bind(AdmissionLimiter limiter, MeterRegistry registry, Iterable<Tag> tags, int topCallers,
      Duration refreshEvery) {
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(refreshEvery, "refreshEvery");
    if (topCallers < 0 || topCallers > MAX_TOP_CALLERS) {
      throw new IllegalArgumentException(
          "topCallers: " + topCallers + " (expected: 0.." + MAX_TOP_CALLERS + ")");
    }
    if (refreshEvery.compareTo(MIN_CALLERS_REFRESH) < 0 || refreshEvery.compareTo(MAX_CALLERS_REFRESH) > 0) {
      throw new IllegalArgumentException("refreshEvery: " + refreshEvery + " (expected: PT0.1S..PT1H)");
    }
    MeterBinding binding = new MeterBinding(registry, limiter);
    Tags common = Tags.of(tags).and("kind", lower(limiter.config().kind()));
    binding.gauge("limiter.limit", limiter, AdmissionLimiter::limit, "Requests the limiter admits at once now", common);
    binding.gauge("limiter.in.flight", limiter, AdmissionLimiter::inFlight, "Admitted requests not yet complete", common);
    binding.gauge("limiter.enforcing", limiter, l -> l.isEnforcing() ? 1 : 0,
        "1 while the limiter sheds above its limit (cpu_or_latency and cpu: while hot; gradient: always)", common);
    for (Criticality c : Criticality.values()) {
      binding.counter("limiter.shed", limiter, l -> l.shed(c), "Requests shed without running, by criticality",
          common.and("criticality", lower(c)));
    }
    if (limiter.fairness().enabled()) {
      binding.gauge("limiter.callers.tracked", limiter, AdmissionLimiter::callersTracked,
          "Callers fair admission tracks with a place of their own now", common);
      binding.counter("limiter.callers.overflowed", limiter, AdmissionLimiter::callersOverflowed,
          "New callers that found fair admission's table full of active callers and shared its overflow bucket",
          common);
      if (topCallers > 0) {
        new CallerMeters(binding, limiter, topCallers, common).start(refreshEvery);
      }
    }
    return binding;
  }

  /**
   * A retry budget's meters: retries sent and denied, retries left now.
   *
   * @param budget the retry budget, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(RetryBudget budget, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(budget, "budget");
    MeterBinding binding = new MeterBinding(registry, budget);
    Tags common = Tags.of(tags);
    String retries = "Retries the budget allowed or refused";
    binding.counter("retries", budget, RetryBudget::retriesTaken, retries, common.and("result", "allowed"));
    binding.counter("retries", budget, RetryBudget::retriesDenied, retries, common.and("result", "denied"));
    binding.gauge("retry.budget.remaining", budget, RetryBudget::remaining, "Retries the budget allows now", common);
    return binding;
  }

  /**
   * A token bucket's meters: its rate and the tokens it holds now.
   *
   * @param bucket the bucket, read when the registry reads a meter
   * @param registry the registry the meters go to
   * @param tags tags every meter carries
   * @return the binding; closing it removes the meters from the registry
   */
  public static MeterBinding bind(TokenBucket bucket, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(bucket, "bucket");
    MeterBinding binding = new MeterBinding(registry, bucket);
    Tags common = Tags.of(tags);
    binding.gauge("token.bucket.rate", bucket, TokenBucket::rate,
        "Tokens the bucket adds per second (a quota lease's granted rate)", common);
    binding.gauge("token.bucket.available", bucket, TokenBucket::available,
        "Tokens the bucket holds now (at most its burst)", common);
    return binding;
  }

  static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
