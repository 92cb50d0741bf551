package dev.ballast.micrometer;

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
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.lang.ref.WeakReference;
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
   * A balancer's meters: picks, outcomes, in-flight requests, state and transitions per backend
   * (tagged {@code backend}), the policy's per-backend number, failed picks by reason, the subset's
   * size and churn, rejected inputs. All tagged {@code policy} and with {@code tags}. Per-backend
   * meters follow the subset: they appear when a backend joins and leave when it leaves.
   */
  public static MeterBinding bind(Balancer balancer, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(balancer, "balancer");
    Tags common = Tags.of(tags).and("policy", balancer.policy().name());
    MeterBinding binding = new MeterBinding(registry, balancer);
    for (PickStatus status : PickStatus.values()) {
      if (status != PickStatus.PICKED) {
        binding.add(FunctionCounter.builder(PREFIX + "picks.failed", balancer, b -> b.failedPicks(status))
            .description("Picks that found no backend, by reason")
            .tags(common).tag("reason", lower(status))
            .register(registry));
      }
    }
    binding.add(Gauge.builder(PREFIX + "subset.size", balancer, b -> b.health().backends().size())
        .description("Backends in the balancer's subset")
        .tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "subset.changes", balancer, Balancer::subsetAdditions)
        .description("Backends that joined or left the subset (connection churn)")
        .tags(common).tag("change", "joined").register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "subset.changes", balancer, Balancer::subsetRemovals)
        .description("Backends that joined or left the subset (connection churn)")
        .tags(common).tag("change", "left").register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "load.reports.rejected", balancer, Balancer::rejectedLoadReports)
        .description("Load reports rejected for a negative, NaN or infinite field")
        .tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "latencies.negative", balancer, Balancer::negativeLatencies)
        .description("Outcomes reported with a negative latency, counted as zero")
        .tags(common).register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "probes.lost", balancer, Balancer::lostProbeAnswers)
        .description("Probe answers the probe pool could not store")
        .tags(common).register(registry));

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
      MeterRegistry registry = binding.registry();
      Tags tags = common.and("backend", backend.key());
      List<Meter> meters = new ArrayList<>();
      meters.add(FunctionCounter.builder(PREFIX + "picks", backend, Backend::requestsStarted)
          .description("Requests the balancer sent to the backend").tags(tags).register(registry));
      meters.add(Gauge.builder(PREFIX + "requests.in.flight", backend, Backend::activeRequests)
          .description("Requests in flight to the backend").tags(tags).register(registry));
      for (RequestOutcome outcome : RequestOutcome.values()) {
        meters.add(FunctionCounter.builder(PREFIX + "requests.ended", backend, b -> b.requestsEnded(outcome))
            .description("Requests that ended, by outcome").tags(tags).tag("outcome", lower(outcome))
            .register(registry));
      }
      meters.add(FunctionCounter.builder(PREFIX + "requests.unmatched.ends", backend, Backend::unmatchedEnds)
          .description("Ends reported while nothing was in flight (a request ended twice)").tags(tags)
          .register(registry));
      for (BackendState state : BackendState.values()) {
        meters.add(Gauge.builder(PREFIX + "backend.state", backend, b -> b.state() == state ? 1 : 0)
            .description("1 for the backend's current state, 0 for the others").tags(tags)
            .tag("state", lower(state)).register(registry));
        meters.add(FunctionCounter.builder(PREFIX + "backend.transitions", backend, b -> b.transitionsTo(state))
            .description("Moves of the backend into each state").tags(tags).tag("state", lower(state))
            .register(registry));
      }
      Balancer owner = balancer.get();
      if (statistic != PolicyStatistic.NONE && owner != null) {
        String key = backend.key();
        meters.add(Gauge.builder(PREFIX + "policy." + statistic.metricName(), owner, b -> b.policyStatistic(key))
            .description(statisticDescription(statistic)).baseUnit(statistic.unit().isEmpty() ? null : statistic.unit())
            .tags(tags).register(registry));
      }
      meters.forEach(binding::add);
      return meters;
    }
  }

  private static String statisticDescription(PolicyStatistic statistic) {
    return switch (statistic) {
      case WEIGHT -> "Weighted round robin: the backend's weight from its load reports (0 while none is in force)";
      case COST -> "Power of two choices: the cost of one more request to the backend";
      case PREDICTED_END -> "Fair share: time until one more request to the backend is predicted to end";
      case NONE -> "";
    };
  }

  /** An adaptive throttle's meters: rejection probability and local rejections per criticality. */
  public static MeterBinding bind(AdaptiveThrottle throttle, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(throttle, "throttle");
    MeterBinding binding = new MeterBinding(registry, throttle);
    Tags common = Tags.of(tags);
    for (Criticality c : Criticality.values()) {
      Tags t = common.and("criticality", lower(c));
      binding.add(Gauge.builder(PREFIX + "throttle.probability", throttle, th -> th.rejectionProbability(c))
          .description("Probability that the client rejects a new request locally").tags(t).register(registry));
      binding.add(FunctionCounter.builder(PREFIX + "throttle.rejected", throttle, th -> th.rejected(c))
          .description("Requests rejected locally by the adaptive throttle").tags(t).register(registry));
    }
    return binding;
  }

  /** A server admission limiter's meters: limit, in flight, whether it enforces, sheds per criticality. */
  public static MeterBinding bind(AdmissionLimiter limiter, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(limiter, "limiter");
    MeterBinding binding = new MeterBinding(registry, limiter);
    Tags common = Tags.of(tags).and("kind", lower(limiter.config().kind()));
    binding.add(Gauge.builder(PREFIX + "limiter.limit", limiter, AdmissionLimiter::limit)
        .description("Requests the limiter admits at once now").tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "limiter.in.flight", limiter, AdmissionLimiter::inFlight)
        .description("Admitted requests not yet complete").tags(common).register(registry));
    binding.add(Gauge.builder(PREFIX + "limiter.enforcing", limiter, l -> l.isEnforcing() ? 1 : 0)
        .description("1 while the limiter sheds above its limit (CPU limiter: CPU above threshold)").tags(common)
        .register(registry));
    for (Criticality c : Criticality.values()) {
      binding.add(FunctionCounter.builder(PREFIX + "limiter.shed", limiter, l -> l.shed(c))
          .description("Requests shed without running, by criticality").tags(common).tag("criticality", lower(c))
          .register(registry));
    }
    return binding;
  }

  /** A retry budget's meters: retries sent and denied, retries left now. */
  public static MeterBinding bind(RetryBudget budget, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(budget, "budget");
    MeterBinding binding = new MeterBinding(registry, budget);
    Tags common = Tags.of(tags);
    binding.add(FunctionCounter.builder(PREFIX + "retries", budget, RetryBudget::retriesTaken)
        .description("Retries the budget allowed or refused").tags(common).tag("result", "allowed")
        .register(registry));
    binding.add(FunctionCounter.builder(PREFIX + "retries", budget, RetryBudget::retriesDenied)
        .description("Retries the budget allowed or refused").tags(common).tag("result", "denied")
        .register(registry));
    binding.add(Gauge.builder(PREFIX + "retry.budget.remaining", budget, RetryBudget::remaining)
        .description("Retries the budget allows now").tags(common).register(registry));
    return binding;
  }

  /** A token bucket's meters: its rate and the tokens it holds now. */
  public static MeterBinding bind(TokenBucket bucket, MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(bucket, "bucket");
    MeterBinding binding = new MeterBinding(registry, bucket);
    Tags common = Tags.of(tags);
    binding.add(Gauge.builder(PREFIX + "token.bucket.rate", bucket, TokenBucket::rate)
        .description("Tokens the bucket adds per second (a quota lease's granted rate)").tags(common)
        .register(registry));
    binding.add(Gauge.builder(PREFIX + "token.bucket.available", bucket, TokenBucket::available)
        .description("Tokens the bucket holds now (at most its burst)").tags(common).register(registry));
    return binding;
  }

  static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
