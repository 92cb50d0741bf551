package dev.ballast.testing;

import dev.ballast.health.Backend;
import dev.ballast.pick.CustomPolicy;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.pick.Policy;
import dev.ballast.pick.PolicyProvider;
import dev.ballast.settings.Setting;
import dev.ballast.settings.Settings;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A policy as a user writes one, for the tests of the extension point in every module: {@code
 * test_fewest_in_flight} compares {@code choices} random backends and takes the one with the
 * fewest requests in flight, and scans the rest when none of them can take the request. It counts
 * the outcomes and load reports it is told of, per backend, so that a test can see them arrive
 * through a transport. A module's tests make it selectable by name with one line in their own
 * {@code META-INF/services/dev.ballast.pick.PolicyProvider}: {@code
 * dev.ballast.testing.FewestInFlightPolicy$Provider} (the test-jar carries no such file, so that
 * it registers nothing where it is not wanted).
 */
public final class FewestInFlightPolicy extends CustomPolicy<FewestInFlightPolicy.Counts> {
  /** The policy's name. */
  public static final String NAME = "test_fewest_in_flight";

  /** How many random backends a pick compares. */
  public static final Setting<Integer> CHOICES =
      Setting.wholeNumber("choices", 2, 1, 64, "how many random backends a pick compares");

  /** The declared settings. */
  public static final Settings<Config> SETTINGS =
      Settings.declare(NAME, Builder::new, Builder::build).with(CHOICES, Builder::choices, Config::choices).done();

  /**
   * The policy's config.
   *
   * @param choices how many random backends a pick compares
   */
  public record Config(int choices) {
    /** Checks the range. */
    public Config {
      CHOICES.check(choices);
    }
  }

  /** The config's builder, as {@link Settings} fills it. */
  public static final class Builder {
    private int choices = CHOICES.defaultValue();

    /** Sets {@code choices}. */
    public void choices(int choices) {
      this.choices = choices;
    }

    /** The config. */
    public Config build() {
      return new Config(choices);
    }
  }

  /** The provider {@link java.util.ServiceLoader} finds. */
  public static final class Provider extends PolicyProvider<Config> {
    @Override
    public Settings<Config> settings() {
      return SETTINGS;
    }

    @Override
    public Policy create(Config config) {
      return new FewestInFlightPolicy(config);
    }
  }

  /** What the policy was told of one backend. */
  public static final class Counts {
    /** The backend. */
    public final Backend backend;
    /** Successes reported. */
    public final LongAdder successes = new LongAdder();
    /** Failures reported. */
    public final LongAdder failures = new LongAdder();
    /** Cancellations reported. */
    public final LongAdder cancels = new LongAdder();
    /** Load reports accepted. */
    public final LongAdder loadReports = new LongAdder();

    Counts(Backend backend) {
      this.backend = backend;
    }
  }

  private final Config config;
  private final Map<String, Counts> byKey = new ConcurrentHashMap<>();

  /** The policy with {@code config}. */
  public FewestInFlightPolicy(Config config) {
    super(NAME);
    this.config = config;
  }

  /** Its config. */
  public Config config() {
    return config;
  }

  /** What the policy was told of the backend {@code key} since it last joined a subset, or null. */
  public Counts counts(String key) {
    return byKey.get(key);
  }

  @Override
  protected Counts newBackendState(Backend backend) {
    Counts counts = new Counts(backend);
    byKey.put(backend.key(), counts);
    return counts;
  }

  @Override
  protected Picker newPicker(Snapshot<Counts> snapshot) {
    int n = snapshot.size();
    int choices = config.choices();
    return () -> {
      if (n == 0) {
        return snapshot.failed();
      }
      int best = -1;
      int fewest = Integer.MAX_VALUE;
      for (int c = 0; c < choices; c++) {
        int i = snapshot.randomInt(n);
        int active = snapshot.backend(i).activeRequestsIfAccepting();
        if (active >= 0 && active < fewest) {
          best = i;
          fewest = active;
        }
      }
      if (best >= 0) {
        Pick pick = snapshot.acquire(best);
        if (pick != null) {
          return pick;
        }
      }
      int start = snapshot.randomInt(n);
      for (int k = 0; k < n; k++) {
        Pick pick = snapshot.acquire((start + k) % n);
        if (pick != null) {
          return pick;
        }
      }
      return snapshot.failed();
    };
  }

  @Override
  public String toString() {
    return NAME + "(" + config + ")";
  }

  @Override
  protected void onSuccess(Counts state, long latencyNanos) {
    state.successes.increment();
  }

  @Override
  protected void onFailure(Counts state, FailureKind kind, long latencyNanos) {
    state.failures.increment();
  }

  @Override
  protected void onCancel(Counts state) {
    state.cancels.increment();
  }

  @Override
  protected void onLoadReport(Counts state, double utilization, double rps, double eps, long nowNanos) {
    state.loadReports.increment();
  }
}
