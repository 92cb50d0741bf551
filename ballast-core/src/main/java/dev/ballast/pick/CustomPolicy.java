package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.time.NanoClock;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A picking policy of one's own: the supported way to plug a policy into a {@link Balancer}, and,
 * through a {@link PolicyProvider}, into the gRPC service config, xDS and the simulator's scenarios
 * by name, like the built-in policies.
 *
 * <p>A custom policy works like the built-in ones. The balancer keeps one tracking object per
 * backend of the subset for as long as the backend stays in it, and builds an immutable {@link
 * Snapshot} of them on the control plane whenever the subset changes or {@link #refresh} runs. The
 * policy turns each snapshot into a {@link Picker}. The data plane calls {@link Picker#pick()}
 * from any thread, and the {@link Pick} it returns is the chosen backend's long-lived tracking
 * object, so a pick allocates nothing: the picker returns {@link Snapshot#acquire(int)} for the
 * backend it chose, or {@link Snapshot#failed()} when none can take the request.
 *
 * <p>The policy's own per-backend statistics live in an object of type {@code S} that {@link
 * #newBackendState} makes when a backend joins the subset; the outcome hooks ({@link #onSuccess},
 * {@link #onFailure}, {@link #onCancel}, {@link #onLoadReport}) receive it after every request. Use
 * {@link Void} and return {@code null} for a policy that keeps none.
 *
 * <p>The contract, which {@code ballast-testkit}'s {@code PolicyContractKit} checks rule by rule:
 *
 * <ul>
 *   <li>a pick chooses only from its snapshot, and only a backend that {@link Snapshot#acquire}
 *       accepted: never one that left the subset, is unavailable or at its limit;
 *   <li>it fails only when no backend of the snapshot can take the request, with {@link
 *       Snapshot#failed()}, which gives the reason; an empty snapshot is normal;
 *   <li>{@link Picker#pick()} and the outcome hooks are thread-safe, lock-free and allocate
 *       nothing; they never throw;
 *   <li>time comes from {@link Snapshot#clock()} and randomness from the snapshot's draws, so that
 *       the simulator and tests can repeat a run.
 * </ul>
 *
 * <p>This class is an abstract class rather than an interface so that methods can be added to it
 * with defaults (a keyed pick for consistent hashing, for example) without breaking subclasses.
 *
 * @param <S> the policy's per-backend state
 */
@Experimental("the extension point is new: its snapshot may gain methods (a keyed pick for consistent hashing) as its first users try it")
public abstract non-sealed class CustomPolicy<S> implements Policy {
  /** A policy name: lower-case letters, digits and underscores, starting with a letter, at most 64 characters. */
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  private final String name;
  /** How the balancer drives this policy: the package's own view of it. */
  final PickerFactory factory = new Factory();

  /**
   * A policy called {@code name}, the name a service config, an xDS cluster or a scenario selects
   * it by.
   *
   * @param name lower-case letters, digits and {@code _}, starting with a letter, at most 64
   *     characters (gRPC's rule for policy names, bounded)
   * @throws IllegalArgumentException for a name that breaks the rule
   */
  protected CustomPolicy(String name) {
    this.name = checkName("name", name);
  }

  /**
   * Checks a policy name against the rule {@link #CustomPolicy(String)} states.
   *
   * @param what how the message names the value, such as {@code name}
   * @param name the name to check
   * @return {@code name}
   * @throws IllegalArgumentException {@code "what: 'name' (expected: ...)"} for a name that breaks the rule
   */
  static String checkName(String what, String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(what + ": " + dev.ballast.internal.Ranges.quote(name)
          + " (expected: lower-case letters, digits and _, starting with a letter, at most 64 characters)");
    }
    return name;
  }

  @Override
  public final String name() {
    return name;
  }

  /**
   * The policy's state for a backend that joined the subset, kept until it leaves (a backend
   * that leaves and comes back gets a new one). Called on the control plane.
   *
   * @param backend the backend that joined
   * @return the state the outcome hooks and {@link Snapshot#state(int)} hand back; may be null
   */
  protected abstract S newBackendState(Backend backend);

  /**
   * A picker over {@code snapshot}, after a subset change. Called on the control plane; the
   * picker may keep the snapshot (it is immutable) and whatever it computes from it.
   *
   * @param snapshot the backends of the subset (or of one zone of it) and their states
   * @return the picker every pick goes through until the next snapshot
   */
  protected abstract Picker newPicker(Snapshot<S> snapshot);

  /**
   * The periodic recomputation, every {@link #refreshIntervalNanos()} on the control plane (for
   * weights or statistics that a picker reads precomputed). The default keeps the current picker.
   *
   * @param current the picker in use
   * @param snapshot the same backends as the current picker's, in a fresh snapshot
   * @return the picker to use from now on
   */
  protected Picker refresh(Picker current, Snapshot<S> snapshot) {
    return current;
  }

  /**
   * How often {@link #refresh} should run; one second by default.
   *
   * @return the interval in nanoseconds
   */
  protected long refreshIntervalNanos() {
    return 1_000_000_000L;
  }

  /**
   * A request to the backend of {@code state} succeeded. Called on the thread that ends the
   * request, before the backend's in-flight count drops; thread-safe, lock-free and
   * allocation-free, like a pick.
   *
   * @param state the backend's state, as {@link #newBackendState} made it
   * @param latencyNanos the request's latency, never negative (a negative one is counted and taken as 0)
   */
  protected void onSuccess(S state, long latencyNanos) {}

  /**
   * A request to the backend of {@code state} failed; see {@link #onSuccess} for the threading.
   *
   * @param state the backend's state
   * @param kind who failed it; {@link FailureKind#OVERLOADED} when the backend shed it
   * @param latencyNanos the request's latency, never negative
   */
  protected void onFailure(S state, FailureKind kind, long latencyNanos) {}

  /**
   * The caller gave up on a request to the backend of {@code state} (its deadline, a user's
   * cancel): never the backend's fault. See {@link #onSuccess} for the threading.
   *
   * @param state the backend's state
   */
  protected void onCancel(S state) {}

  /**
   * A load report from the backend of {@code state} that passed validation (every field finite
   * and not negative); see {@link Pick#reportLoad} for what the fields mean. Called by whichever
   * thread delivers the report.
   *
   * @param state the backend's state
   * @param utilization the application's utilization when it reported one above 0, else the CPU's
   * @param rps queries per second
   * @param eps errors per second
   * @param nowNanos the balancer's clock when the report arrived
   */
  protected void onLoadReport(S state, double utilization, double rps, double eps, long nowNanos) {}

  /**
   * The policy as logs and messages show it: its name by default. A policy with settings should
   * add them, as the built-in policies do ({@code name(config)}).
   *
   * @return the name
   */
  @Override
  public String toString() {
    return name;
  }

  /**
   * The backends a picker chooses among, fixed when the balancer built it, with the means to
   * choose without allocating: {@link #acquire(int)}, {@link #failed()}, the balancer's clock and
   * random draws. Immutable and safe to use from any thread.
   *
   * @param <S> the policy's per-backend state
   */
  public static final class Snapshot<S> {
    private final ExtensionSlot<S>[] slots;
    private final NanoClock clock;
    private final PickRandom random;

    private Snapshot(ExtensionSlot<S>[] slots, NanoClock clock, PickRandom random) {
      this.slots = slots;
      this.clock = clock;
      this.random = random;
    }

    /**
     * How many backends the snapshot holds; 0 for an empty subset.
     *
     * @return the number of backends, indexed {@code 0..size()-1}
     */
    public int size() {
      return slots.length;
    }

    /**
     * The backend at {@code index}: its state, requests in flight, limit and warm-up, read live.
     * A picker reads it; it never calls {@link Backend#tryAcquire()} or {@link Backend#release}
     * itself ({@link #acquire(int)} does, and the {@link Pick} ends the request).
     *
     * @param index 0 to {@code size() - 1}
     * @return the backend
     * @throws ArrayIndexOutOfBoundsException for an index outside the snapshot
     */
    public Backend backend(int index) {
      return slots[index].backend;
    }

    /**
     * The policy's state for the backend at {@code index}, as {@link #newBackendState} made it.
     *
     * @param index 0 to {@code size() - 1}
     * @return the state, or null if the policy keeps none
     * @throws ArrayIndexOutOfBoundsException for an index outside the snapshot
     */
    public S state(int index) {
      return slots[index].state;
    }

    /**
     * Starts a request on the backend at {@code index} if it takes new requests now (its state
     * accepts them, it is below its limit and not ejected as an outlier) and returns the request's
     * {@link Pick}, which the picker returns; otherwise returns null and changes nothing. A
     * non-null answer must be returned from the pick: the caller ends it exactly once.
     *
     * @param index 0 to {@code size() - 1}
     * @return the pick, or null if the backend cannot take the request
     * @throws ArrayIndexOutOfBoundsException for an index outside the snapshot
     */
    public Pick acquire(int index) {
      ExtensionSlot<S> slot = slots[index];
      return slot.backend.tryAcquire() ? slot : null;
    }

    /**
     * The failed pick for when no backend of the snapshot can take the request, with the reason:
     * {@link PickStatus#NO_BACKENDS} for an empty snapshot, {@link PickStatus#ALL_AT_LIMIT} when
     * some backend takes requests but all such are full, {@link PickStatus#ALL_UNAVAILABLE}
     * otherwise. Allocates nothing.
     *
     * @return a shared, failed pick
     */
    public Pick failed() {
      return FailedPick.of(slots);
    }

    /**
     * The backend's warm-up factor: below 1 only while it ramps in after becoming healthy, and
     * always 1 when the balancer does not ramp backends in.
     *
     * @param index 0 to {@code size() - 1}
     * @return the share of its normal traffic the backend should get now, in (0, 1]
     * @throws ArrayIndexOutOfBoundsException for an index outside the snapshot
     */
    public double warmUpFactor(int index) {
      return slots[index].warmUpFactor();
    }

    /**
     * The balancer's clock: virtual time in the simulator and in tests, a cheap cached clock in
     * production.
     *
     * @return the clock
     */
    public NanoClock clock() {
      return clock;
    }

    /**
     * A random draw in {@code [0, bound)}: reproducible from the balancer's seed when it was built
     * with {@link Balancer.Builder#reproducibleFrom}, per thread otherwise. Allocates nothing.
     *
     * @param bound the exclusive upper bound, at least 1
     * @return the draw
     */
    public int randomInt(int bound) {
      return random.nextInt(bound);
    }

    /**
     * A random draw in {@code [0, 1)}, from the same source as {@link #randomInt(int)}.
     *
     * @return the draw
     */
    public double randomDouble() {
      return random.nextDouble();
    }

    /**
     * A random 64-bit draw, from the same source as {@link #randomInt(int)}.
     *
     * @return the draw
     */
    public long randomLong() {
      return random.nextLong();
    }
  }

  /** The balancer's view of this policy: tracking objects and pickers over snapshots of them. */
  private final class Factory implements PickerFactory {
    @Override
    public Slot newSlot(Backend backend, PolicyContext context) {
      return new ExtensionSlot<>(CustomPolicy.this, backend, newBackendState(backend), context);
    }

    @Override
    public Picker newPicker(Slot[] slots, PolicyContext context) {
      return checked(CustomPolicy.this.newPicker(snapshot(slots, context)));
    }

    @Override
    public Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
      Picker own = current instanceof CheckedPicker checked ? checked.delegate : current;
      Picker next = CustomPolicy.this.refresh(own, snapshot(slots, context));
      return next == own ? current : checked(next);
    }

    @Override
    public long refreshIntervalNanos() {
      long interval = CustomPolicy.this.refreshIntervalNanos();
      if (interval <= 0) {
        throw new IllegalStateException(
            name + ": refreshIntervalNanos " + interval + " (expected: a positive number of nanoseconds)");
      }
      return interval;
    }

    @SuppressWarnings("unchecked")
    private Snapshot<S> snapshot(Slot[] slots, PolicyContext context) {
      ExtensionSlot<S>[] own = new ExtensionSlot[slots.length];
      for (int i = 0; i < slots.length; i++) {
        own[i] = (ExtensionSlot<S>) slots[i];
      }
      return new Snapshot<>(own, context.clock(), context.newPickRandom());
    }

    private Picker checked(Picker picker) {
      if (picker == null) {
        throw new NullPointerException(name + ": newPicker returned null (expected: a picker over the snapshot)");
      }
      return new CheckedPicker(name, picker);
    }
  }

  /**
   * The policy's picker, with the one check a pick can afford: a null answer becomes an error
   * that names the policy, rather than a NullPointerException somewhere in the transport.
   */
  private static final class CheckedPicker implements Picker {
    private final String name;
    final Picker delegate;

    CheckedPicker(String name, Picker delegate) {
      this.name = name;
      this.delegate = delegate;
    }

    @Override
    public Pick pick() {
      Pick pick = delegate.pick();
      if (pick == null) {
        throw new NullPointerException(
            name + ": the picker returned null (expected: snapshot.acquire(i) of a backend it took, or snapshot.failed())");
      }
      return pick;
    }
  }

  /** A backend's tracking object for a custom policy: the slot, with the policy's state and hooks. */
  static final class ExtensionSlot<S> extends Slot {
    private final CustomPolicy<S> policy;
    final S state;

    ExtensionSlot(CustomPolicy<S> policy, Backend backend, S state, PolicyContext context) {
      super(backend, context);
      this.policy = policy;
      this.state = state;
    }

    @Override
    void recordSuccess(long latencyNanos) {
      policy.onSuccess(state, latencyNanos);
    }

    @Override
    void recordFailure(FailureKind kind, long latencyNanos) {
      policy.onFailure(state, kind, latencyNanos);
    }

    @Override
    void recordCancel() {
      policy.onCancel(state);
    }

    @Override
    void accepted(double utilization, double rps, double eps, long now) {
      policy.onLoadReport(state, utilization, rps, eps, now);
    }
  }

  /**
   * The factory a balancer drives {@code policy} through.
   *
   * @param policy a built-in policy or a custom one
   * @return its factory
   */
  static PickerFactory factoryOf(Policy policy) {
    Objects.requireNonNull(policy, "policy");
    return policy instanceof CustomPolicy<?> custom ? custom.factory : (PickerFactory) policy;
  }
}
