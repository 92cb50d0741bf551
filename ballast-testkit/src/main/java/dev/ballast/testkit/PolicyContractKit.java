package dev.ballast.testkit;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.Backend;
import dev.ballast.health.BackendState;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.RequestOutcome;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.FailureKind;
import dev.ballast.pick.Pick;
import dev.ballast.pick.PickStatus;
import dev.ballast.pick.Picker;
import dev.ballast.pick.Policy;
import dev.ballast.probe.ProbeSender;
import dev.ballast.testing.Allocations;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.RandomInputs;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The contract every picking policy keeps, as tests a policy of one's own runs. Subclass it in a
 * test and give it the policy:
 *
 * <pre>{@code
 * final class PrimaryFirstContractTest extends PolicyContractKit {
 *   @Override
 *   protected Policy policy() {
 *     return new PrimaryFirstPolicy(PrimaryFirstPolicy.Config.defaults());
 *   }
 * }
 * }</pre>
 *
 * <p>Each test checks one numbered rule and is named after it, as in the Reactive Streams TCK:
 * {@code required_} rules must hold for every policy; a {@code stochastic_} rule can miss a
 * violation on a given run (it depends on how threads interleave) but never reports one that did
 * not happen. Each test's documentation says what to look at when it fails. Every rule runs in
 * virtual time ({@link FakeClock}) on balancers whose backends are called {@code b0}, {@code b1},
 * ...; the property rules draw their cases from fixed seeds, and a failure names the seed ({@code
 * -Dballast.seed=SEED} replays it alone).
 *
 * <p>Ballast runs this kit against each of its own policies, and its own tests show a
 * deliberately broken policy failing each rule.
 */
@Experimental("rules may be added, and a rule tightened, as the contract of a policy of one's own settles")
public abstract class PolicyContractKit {
  private static final Duration STEP = Duration.ofNanos(10_000);

  /** For subclasses. */
  protected PolicyContractKit() {}

  /**
   * The policy under test. Called once for each balancer a rule builds, except where a rule shares
   * one policy object between two balancers, as applications do.
   *
   * @return the policy, configured as the test wants it checked
   */
  protected abstract Policy policy();

  /**
   * The last step of building each of the kit's balancers, for a policy that needs more than the
   * defaults; by default it changes nothing. (A probing policy, {@link Policy#needsProbes()}, has
   * by then been given a probe sender that answers at once with the backend's requests in flight
   * and a latency of 1 ms.)
   *
   * @param builder a builder with the health settings, clock and random source the rule chose
   * @return the builder to build the balancer with
   */
  protected Balancer.Builder configure(Balancer.Builder builder) {
    return builder;
  }

  /** A probe sender that answers on the calling thread, allocating nothing. */
  private static final ProbeSender ANSWERING = (backend, receiver) -> receiver.onProbe(backend.activeRequests(), 1_000_000);

  private static List<String> keys(int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add("b" + i);
    }
    return keys;
  }

  /** A balancer over {@code policy} without backends. */
  private Balancer empty(Policy policy, HealthConfig health, FakeClock clock, long seed, boolean reproducible) {
    Balancer.Builder builder = Balancer.builder(policy).health(health).clock(clock);
    if (reproducible) {
      builder.reproducibleFrom(new SplittableRandom(seed));
    }
    if (policy.needsProbes()) {
      builder.probes(ANSWERING);
    }
    return configure(builder).build();
  }

  /** A balancer over {@code n} connected backends, each with a load report, refreshed once. */
  private Balancer balancer(Policy policy, HealthConfig health, FakeClock clock, long seed, int n, boolean reproducible) {
    Balancer balancer = empty(policy, health, clock, seed, reproducible);
    balancer.updateSubset(keys(n));
    for (int i = 0; i < n; i++) {
      balancer.backend("b" + i).onConnected();
      balancer.reportLoad("b" + i, 0.2 + 0.1 * (i % 7), 0, 100 + 50 * i, i % 3);
    }
    balancer.refresh();
    return balancer;
  }

  /**
   * Rule 1: a pick chooses from the balancer's newest snapshot, and only from it. A picker taken
   * before a subset change never starts a request on a backend that left; after the subset is
   * replaced, every pick goes to a backend of the new subset (the very {@link Backend} the
   * balancer holds for its key); and two balancers over one policy object each keep to their own
   * backends.
   *
   * <p>If it fails, look for a snapshot or picker kept where the next one cannot replace it: in a
   * field of the policy object (which every balancer over it shares), in a static field, or in a
   * cache keyed by something other than the snapshot the balancer gave.
   */
  @Test
  public void required_rule1_picksOnlyFromTheNewestSnapshot() {
    FakeClock clock = new FakeClock();
    Policy shared = policy();
    Balancer balancer = balancer(shared, HealthConfig.defaults(), clock, 5, 4, true);
    Balancer other = balancer(shared, HealthConfig.defaults(), clock, 6, 4, true);
    List<Backend> leaving = List.of(balancer.backend("b2"), balancer.backend("b3"));
    Picker before = balancer.picker();

    balancer.updateSubset(List.of("b0", "b1"));
    for (int i = 0; i < 40; i++) {
      Pick pick = before.pick();
      assertThat(pick.isPicked()).as("pick %d from the snapshot taken before the change", i).isTrue();
      assertThat(pick.backend().key()).as("pick %d from the snapshot taken before the change", i).isIn("b0", "b1");
      pick.onSuccess(1_000);
    }
    for (Backend left : leaving) {
      assertThat(left.requestsStarted()).as("requests started on %s after it left the subset", left.key()).isZero();
    }

    List<String> next = List.of("b4", "b5", "b6");
    balancer.updateSubset(next);
    for (String key : next) {
      balancer.backend(key).onConnected();
    }
    for (int i = 0; i < 40; i++) {
      Pick pick = balancer.pick();
      assertThat(pick.isPicked()).as("pick %d after the subset became %s: %s", i, next, pick.status()).isTrue();
      assertThat(pick.backend()).as("pick %d after the subset became %s", i, next).isSameAs(balancer.backend(pick.backend().key()));
      Pick theirs = other.pick();
      assertThat(theirs.isPicked()).as("the other balancer's pick %d", i).isTrue();
      assertThat(theirs.backend()).as("the other balancer's pick %d", i).isSameAs(other.backend(theirs.backend().key()));
      pick.onSuccess(1_000);
      theirs.onSuccess(1_000);
      clock.advance(STEP);
    }
  }

  /**
   * Rule 2: an empty subset is normal. A balancer that never had a backend, and one whose subset
   * became empty, answer every pick with {@link PickStatus#NO_BACKENDS} and refresh without error;
   * a subset that grows again is picked from at once.
   *
   * <p>If it fails with an exception, look for arithmetic on the snapshot's size (a random index
   * drawn over 0 backends, a modulo by 0, a read of index 0) in the picker or in the policy's
   * refresh.
   */
  @Test
  public void required_rule2_anEmptySubsetFailsFastWithNoBackends() {
    FakeClock clock = new FakeClock();
    for (boolean reproducible : new boolean[] {true, false}) {
      Balancer balancer = empty(policy(), HealthConfig.defaults(), clock, 7, reproducible);
      assertThat(balancer.pick().status()).as("a pick before any backend").isEqualTo(PickStatus.NO_BACKENDS);
      clock.advance(Duration.ofSeconds(1));
      balancer.refresh();
      assertThat(balancer.pick().status()).as("a pick after a refresh without backends").isEqualTo(PickStatus.NO_BACKENDS);

      balancer.updateSubset(keys(3));
      for (String key : keys(3)) {
        balancer.backend(key).onConnected();
      }
      Pick pick = balancer.pick();
      assertThat(pick.isPicked()).as("a pick once the subset has three backends: %s", pick.status()).isTrue();
      pick.onSuccess(1_000);

      balancer.updateSubset(List.of());
      assertThat(balancer.pick().status()).as("a pick after the subset became empty").isEqualTo(PickStatus.NO_BACKENDS);
      clock.advance(Duration.ofSeconds(1));
      balancer.refresh();
      assertThat(balancer.pick().status()).as("a pick after the subset became empty and a refresh")
          .isEqualTo(PickStatus.NO_BACKENDS);
      assertThat(balancer.failedPicks(PickStatus.NO_BACKENDS)).isEqualTo(4);
    }
  }

  /** One step of a subset's life: what changes before the picks, and how many picks follow. */
  record Step(List<String> subset, int backend, int event, boolean refresh, int picks, int ends) {}

  /**
   * Rule 3: the policy survives a changing subset. Through random sequences of subset changes
   * (backends joining, leaving, coming back, reordered, none left), health changes (connecting,
   * refusing, lame duck, healthy again), refreshes and requests held across the changes, every pick
   * either takes a backend of the current subset that could take it, or, only when none could,
   * fails with the reason {@link Pick#status()} says; and every request held across a change ends
   * on the backend it started on.
   *
   * <p>If it fails, the message names the seed and the steps. Look for state sized once (an array
   * per backend allocated for the first subset), for indexes kept from an older snapshot, and for
   * a pick that gives up before it has tried every backend that could take the request.
   */
  @Test
  public void required_rule3_survivesAChangingSubset() {
    int limit = 2;
    forAll(300, in -> new Case(in.listOf(1, 25, PolicyContractKit::step), in.anyBoolean(), in.anyLong()), c -> {
      FakeClock clock = new FakeClock();
      Balancer balancer = empty(policy(), HealthConfig.builder().activeRequestLimit(limit).build(), clock, c.seed(),
          c.reproducible());
      List<Pick> held = new ArrayList<>();
      Set<Backend> everyBackend = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      for (Step step : c.steps()) {
        if (step.subset() != null) {
          balancer.updateSubset(step.subset());
          for (String key : step.subset()) {
            if (everyBackend.add(balancer.backend(key))) {
              balancer.backend(key).onConnected();
            }
          }
        }
        List<Backend> backends = balancer.health().backends();
        if (!backends.isEmpty()) {
          event(backends.get(step.backend() % backends.size()), step.event());
        }
        if (step.refresh()) {
          clock.advance(Duration.ofMillis(100));
          balancer.refresh();
        }
        for (int p = 0; p < step.picks(); p++) {
          checkedPick(balancer, held);
          clock.advance(STEP);
        }
        for (int e = 0; e < step.ends() && !held.isEmpty(); e++) {
          held.remove(held.size() - 1).onSuccess(1_000);
        }
      }
      for (Pick pick : held) {
        pick.onCancel();
      }
      for (Backend backend : everyBackend) {
        assertThat(backend.activeRequests()).as("requests left in flight on %s once every pick ended", backend.key())
            .isZero();
        assertThat(backend.unmatchedEnds()).as("requests ended twice on %s", backend.key()).isZero();
      }
    });
  }

  /** A case of rule 3: the steps, and where the balancer's randomness comes from. */
  record Case(List<Step> steps, boolean reproducible, long seed) {}

  private static Step step(RandomInputs in) {
    List<String> subset = null;
    if (in.withProbability(0.4)) {
      List<String> all = keys(12);
      subset = new ArrayList<>();
      int size = in.intBetween(0, 8);
      for (int i = 0; i < size; i++) {
        String key = all.remove(in.intBetween(0, all.size() - 1));
        subset.add(key);
      }
    }
    return new Step(subset, in.intBetween(0, 7), in.intBetween(0, 5), in.withProbability(0.3), in.intBetween(0, 6),
        in.intBetween(0, 4));
  }

  /** A health event on {@code backend}: 0 connecting, 1 refusing, 2 lame duck, 3 and above connected. */
  private static void event(Backend backend, int event) {
    switch (event) {
      case 0 -> backend.onConnecting();
      case 1 -> backend.onConnectFailed();
      case 2 -> backend.onLameDuck();
      default -> backend.onConnected();
    }
  }

  /**
   * One pick, checked against what the balancer's backends allow just before it: a backend that
   * could take it, or, only when none could, the failure that says why. A successful pick is held.
   */
  private static void checkedPick(Balancer balancer, List<Pick> held) {
    List<Backend> backends = balancer.health().backends();
    List<String> allowed = new ArrayList<>();
    boolean anyAccepting = false;
    for (Backend backend : backends) {
      anyAccepting |= backend.state().acceptsNewRequests() && !backend.isEjected();
      if (backend.acceptsNewRequests()) {
        allowed.add(backend.key());
      }
    }
    Pick pick = balancer.pick();
    if (allowed.isEmpty()) {
      PickStatus expected = backends.isEmpty() ? PickStatus.NO_BACKENDS
          : anyAccepting ? PickStatus.ALL_AT_LIMIT : PickStatus.ALL_UNAVAILABLE;
      assertThat(pick.status()).as("a pick when no backend of %s could take it", keysOf(backends)).isEqualTo(expected);
      return;
    }
    assertThat(pick.isPicked()).as("a pick while %s could take it", allowed).isTrue();
    assertThat(pick.backend().key()).as("the backend picked, of %s that could take it", allowed).isIn(allowed);
    assertThat(pick.backend()).as("the backend picked").isSameAs(balancer.backend(pick.backend().key()));
    held.add(pick);
  }

  private static List<String> keysOf(List<Backend> backends) {
    return backends.stream().map(Backend::key).toList();
  }

  /**
   * Each backend's state (IDLE: left idle), the requests it then has in flight, whether warm-up is
   * on, and the seed of the pick randomness.
   */
  record Fleet(List<BackendState> states, List<Integer> active, boolean warmUp, long seed) {}

  /**
   * Rule 4: a pick never takes a backend that is unavailable (connecting, refusing connections,
   * in lame duck) or at its active-request limit, whatever mix of states, loads and warm-up the
   * subset is in; it fails only when every backend is so, with {@link PickStatus#ALL_AT_LIMIT}
   * when some backend takes requests but is full and {@link PickStatus#ALL_UNAVAILABLE} otherwise.
   * Idle backends take requests.
   *
   * <p>If it fails, look at how the picker chooses among backends it cannot take: a policy of
   * one's own should try {@code Snapshot.acquire} on another backend when the one it chose
   * answers null, and return {@code Snapshot.failed()} only once every backend has said no. A
   * policy that turns away warming backends should take one anyway when nothing else can take the
   * request.
   */
  @Test
  public void required_rule4_neverPicksAnUnavailableOrFullBackend() {
    forAll(in -> new Fleet(in.listOf(1, 8, state -> state.oneOf(BackendState.values())),
        in.listOf(8, 8, active -> active.intBetween(0, 3)), in.anyBoolean(), in.anyLong()), fleet -> {
      List<BackendState> states = fleet.states();
      int limit = 3;
      FakeClock clock = new FakeClock();
      HealthConfig health = HealthConfig.builder()
          .activeRequestLimit(limit)
          .warmUpWindow(fleet.warmUp() ? Duration.ofSeconds(10) : Duration.ZERO)
          .idleAfter(Duration.ofMillis(1))
          .build();
      int n = states.size();
      Balancer balancer = balancer(policy(), health, clock, fleet.seed(), n, true);
      clock.advance(Duration.ofSeconds(3));
      // Two idle checks 2 ms apart with no requests between: every backend is IDLE.
      balancer.refresh();
      clock.advance(Duration.ofMillis(2));
      balancer.refresh();
      for (int i = 0; i < n; i++) {
        Backend backend = balancer.backend("b" + i);
        if (states.get(i) == BackendState.IDLE) {
          continue;
        }
        // A request wakes the backend; the others then move it where the case wants it.
        assertThat(backend.tryAcquire()).isTrue();
        backend.release(RequestOutcome.SUCCESS);
        for (int r = 0; r < fleet.active().get(i); r++) {
          backend.tryAcquire();
        }
        event(backend, switch (states.get(i)) {
          case CONNECTING -> 0;
          case REFUSING -> 1;
          case LAME_DUCK -> 2;
          default -> 3;
        });
      }
      List<Pick> held = new ArrayList<>();
      for (int round = 0; round < 4 * limit * n; round++) {
        int before = held.size();
        checkedPick(balancer, held);
        if (held.size() == before) {
          return;
        }
        clock.advance(Duration.ofMillis(1));
      }
    });
  }

  /**
   * Rule 5: every pick is one request on the backend it names, and every outcome reported on it
   * reaches that backend: a backend's requests started are the picks that named it, its requests
   * ended are the outcomes reported for them, by kind, and once every pick has ended nothing is
   * left in flight.
   *
   * <p>If it fails, look for a picker that starts a request it does not return: a {@code
   * Snapshot.acquire} whose pick is dropped for another backend's (each non-null answer starts a
   * request that only its own {@link Pick} ends), or a call of {@link Backend#tryAcquire()} or
   * {@link Backend#release} from the policy, which only the balancer makes.
   */
  @Test
  public void required_rule5_everyPickIsOneRequestAndEveryOutcomeReachesItsBackend() {
    FakeClock clock = new FakeClock();
    int n = 5;
    Balancer balancer = balancer(policy(), HealthConfig.builder().activeRequestLimit(4).build(), clock, 9, n, true);
    SplittableRandom random = new SplittableRandom(9);
    long[] picked = new long[n];
    long[][] ended = new long[n][RequestOutcome.values().length];
    List<Pick> held = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      Pick pick = balancer.pick();
      if (!pick.isPicked()) {
        assertThat(pick.status()).as("pick %d with %s in flight", i, held.size()).isEqualTo(PickStatus.ALL_AT_LIMIT);
      } else {
        picked[index(pick)]++;
        held.add(pick);
      }
      while (held.size() > 6 || (!held.isEmpty() && random.nextInt(3) == 0)) {
        Pick done = held.remove(random.nextInt(held.size()));
        RequestOutcome outcome = RequestOutcome.values()[random.nextInt(RequestOutcome.values().length)];
        end(done, outcome, 1_000 + random.nextInt(1_000_000));
        ended[index(done)][outcome.ordinal()]++;
      }
      clock.advance(STEP);
    }
    for (Pick pick : held) {
      pick.onSuccess(1_000);
      ended[index(pick)][RequestOutcome.SUCCESS.ordinal()]++;
    }
    for (int b = 0; b < n; b++) {
      Backend backend = balancer.backend("b" + b);
      assertThat(backend.requestsStarted()).as("requests started on %s, against the picks that named it", backend.key())
          .isEqualTo(picked[b]);
      for (RequestOutcome outcome : RequestOutcome.values()) {
        assertThat(backend.requestsEnded(outcome)).as("%s requests ended on %s", outcome, backend.key())
            .isEqualTo(ended[b][outcome.ordinal()]);
      }
      assertThat(backend.activeRequests()).as("requests left in flight on %s", backend.key()).isZero();
    }
  }

  private static int index(Pick pick) {
    return Integer.parseInt(pick.backend().key().substring(1));
  }

  /** Ends {@code pick} with {@code outcome}: success, one of the failures, or a cancellation. */
  private static void end(Pick pick, RequestOutcome outcome, long latencyNanos) {
    switch (outcome) {
      case SUCCESS -> pick.onSuccess(latencyNanos);
      case BACKEND_FAILURE -> pick.onFailure(FailureKind.BACKEND, latencyNanos);
      case NETWORK_FAILURE -> pick.onFailure(FailureKind.NETWORK, latencyNanos);
      case OVERLOADED -> pick.onFailure(FailureKind.OVERLOADED, latencyNanos);
      case CANCELLED -> pick.onCancel();
    }
  }

  /**
   * Rule 6: picks, outcomes and load reports allocate nothing, with reproducible randomness (the
   * simulator's and tests') and with per-thread randomness (production's). Measured as the bytes
   * the picking thread allocates over 100,000 requests to 100 backends, after as many to warm up:
   * under 1,000 bytes in all, where one allocating pick would cost megabytes.
   *
   * <p>If it fails, look in the picker and the outcome hooks for a new object per call: a scratch
   * array or list, an iterator (a for-each over a collection), a lambda that captures, a boxed
   * number, a string built for a message that is never thrown. Allocate on the control plane
   * ({@code newPicker}, {@code refresh}, {@code newBackendState}) instead.
   */
  @Test
  public void required_rule6_picksOutcomesAndLoadReportsAllocateNothing() {
    for (boolean reproducible : new boolean[] {true, false}) {
      FakeClock clock = new FakeClock();
      Balancer balancer = balancer(policy(), HealthConfig.defaults(), clock, 5, 100, reproducible);
      runRequests(balancer, clock, 200_000);

      long before = Allocations.byThisThread();
      runRequests(balancer, clock, 100_000);
      long allocated = Allocations.byThisThread() - before;

      // Reading the counter itself may cost a few bytes; a single allocating pick would cost megabytes.
      assertThat(allocated).as("bytes allocated by 100,000 requests, reproducible randomness: %s", reproducible)
          .isLessThan(1_000);
    }
  }

  private static void runRequests(Balancer balancer, FakeClock clock, int count) {
    for (int i = 0; i < count; i++) {
      Pick pick = balancer.pick();
      pick.reportLoad(0.5, 0, 100, 1);
      if ((i & 15) == 0) {
        pick.onFailure(FailureKind.BACKEND, 5_000);
      } else {
        pick.onSuccess(1_000_000);
      }
      clock.advance(STEP);
    }
  }

  /**
   * Rule 7: picks are thread-safe. Four threads pick and end requests at once while the control
   * plane refreshes and changes the subset under them: no pick throws, none exceeds a backend's
   * limit, and every counter adds up exactly (picks, refusals, outcomes by kind, rejected load
   * reports, nothing left in flight). Run with reproducible randomness (one shared random stream)
   * and with per-thread randomness.
   *
   * <p>If it fails with an exception from a picker thread, look for state that picks share and
   * change without atomics: a plain field used as a cursor, a scratch array or collection kept in
   * the picker, a non-thread-safe random generator. If the counters disagree, see rule 5.
   *
   * @throws InterruptedException if the test is interrupted while it waits for the picking threads
   */
  @Test
  public void required_rule7_concurrentPicksKeepEveryCounterExact() throws InterruptedException {
    for (boolean reproducible : new boolean[] {true, false}) {
      Concurrent run = concurrentPicks(reproducible);
      assertThat(run.errors).as("exceptions thrown on the picking threads (reproducible randomness: %s)", reproducible)
          .isEmpty();
      run.assertCountersExact();
    }
  }

  /**
   * Rule 8 (stochastic): picks never block. While four threads pick at once as in rule 7, none of
   * them ever waits to enter a monitor or parks (the JVM's count of each for the thread stays
   * unchanged across its picks and outcomes). A policy that locks may still pass a run in which
   * its threads happened never to contend; a failure is always real.
   *
   * <p>If it fails, look for {@code synchronized} methods or blocks, {@code Lock}s, concurrent
   * collections that lock ({@code ConcurrentHashMap.computeIfAbsent} on a missing key), and
   * waiting, in the picker and the outcome hooks. Use atomics or per-backend state instead.
   *
   * @throws InterruptedException if the test is interrupted while it waits for the picking threads
   */
  @Test
  public void stochastic_rule8_picksNeverBlock() throws InterruptedException {
    Concurrent run = concurrentPicks(false);
    assertThat(run.errors).as("exceptions thrown on the picking threads").isEmpty();
    assertThat(run.blocked.sum()).as("times a picking thread waited to enter a monitor during its picks").isZero();
    assertThat(run.waited.sum()).as("times a picking thread parked or waited during its picks").isZero();
  }

  /** What the four picking threads of rules 7 and 8 saw, and the balancer they picked from. */
  private static final class Concurrent {
    final int threads = 4;
    final int iterations = 20_000;
    final int limit = 2;
    Balancer balancer;
    final LongAdder picked = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder[] outcomes = new LongAdder[RequestOutcome.values().length];
    final LongAdder badReports = new LongAdder();
    final LongAdder blocked = new LongAdder();
    final LongAdder waited = new LongAdder();
    final AtomicInteger overLimit = new AtomicInteger();
    /** Picks made (and ended with a success) before the threads started. */
    int warmUpPicks;
    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    final Set<Backend> backends = Collections.newSetFromMap(new java.util.concurrent.ConcurrentHashMap<>());

    Concurrent() {
      for (int i = 0; i < outcomes.length; i++) {
        outcomes[i] = new LongAdder();
      }
    }

    void assertCountersExact() {
      assertThat(picked.sum() + refused.sum()).as("picks and refusals").isEqualTo((long) threads * iterations);
      assertThat(overLimit.get()).as("picks of a backend past its limit of %s", limit).isZero();
      assertThat(balancer.rejectedLoadReports()).as("load reports rejected").isEqualTo(badReports.sum());
      long started = 0;
      long[] ended = new long[outcomes.length];
      for (Backend backend : backends) {
        assertThat(backend.activeRequests()).as("requests left in flight on %s", backend.key()).isZero();
        started += backend.requestsStarted();
        for (RequestOutcome outcome : RequestOutcome.values()) {
          ended[outcome.ordinal()] += backend.requestsEnded(outcome);
        }
      }
      assertThat(started).as("requests started, against successful picks").isEqualTo(picked.sum() + warmUpPicks);
      for (RequestOutcome outcome : RequestOutcome.values()) {
        long warmUp = outcome == RequestOutcome.SUCCESS ? warmUpPicks : 0;
        assertThat(ended[outcome.ordinal()]).as("%s requests ended", outcome)
            .isEqualTo(outcomes[outcome.ordinal()].sum() + warmUp);
      }
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private Concurrent concurrentPicks(boolean reproducible) throws InterruptedException {
    Concurrent run = new Concurrent();
    FakeClock clock = new FakeClock();
    Balancer balancer =
        balancer(policy(), HealthConfig.builder().activeRequestLimit(run.limit).build(), clock, 11, 3, reproducible);
    run.balancer = balancer;
    run.backends.addAll(balancer.health().backends());
    // Before the threads start, one pick past every backend's limit: the classes of the failing
    // path are loaded and initialized here, not by racing threads inside the counted picks.
    List<Pick> full = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Pick pick = balancer.pick();
      if (!pick.isPicked()) {
        break;
      }
      full.add(pick);
    }
    for (Pick pick : full) {
      pick.onSuccess(1_000);
    }
    run.warmUpPicks = full.size();
    THREADS.getThreadInfo(Thread.currentThread().getId());
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < run.threads; t++) {
      int salt = t;
      Thread worker = new Thread(() -> {
        try {
          start.await();
          // Warm-up picks first (class loading takes locks), then the ones counted.
          picks(run, salt, run.iterations / 10);
          ThreadInfo before = THREADS.getThreadInfo(Thread.currentThread().getId());
          picks(run, salt, run.iterations - run.iterations / 10);
          ThreadInfo after = THREADS.getThreadInfo(Thread.currentThread().getId());
          run.blocked.add(after.getBlockedCount() - before.getBlockedCount());
          run.waited.add(after.getWaitedCount() - before.getWaitedCount());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (Throwable e) {
          run.errors.add(e);
        }
      }, "policy-contract-picker-" + t);
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    // The control plane keeps working meanwhile: time passes, snapshots are recomputed, and the
    // subset is updated (the same backends in a rotated order: every policy builds a new picker).
    List<String> keys = new ArrayList<>(keys(3));
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(10));
      balancer.refresh();
      if (i % 10 == 0) {
        Collections.rotate(keys, 1);
        balancer.updateSubset(keys);
      }
    }
    for (Thread worker : workers) {
      // A hang guard only: the picks end by themselves.
      worker.join(Duration.ofMinutes(2).toMillis());
      assertThat(worker.isAlive()).as("%s still picking after 2 minutes", worker.getName()).isFalse();
    }
    return run;
  }

  private static void picks(Concurrent run, int salt, int count) {
    Balancer balancer = run.balancer;
    for (int i = 0; i < count; i++) {
      Pick pick = balancer.pick();
      if (!pick.isPicked()) {
        if (pick.status() != PickStatus.ALL_AT_LIMIT) {
          throw new AssertionError("a failed pick while every backend is healthy: " + pick.status()
              + " (expected: ALL_AT_LIMIT, only when every backend is full)");
        }
        run.refused.increment();
        continue;
      }
      run.picked.increment();
      if (pick.backend().activeRequests() > run.limit) {
        run.overLimit.incrementAndGet();
      }
      if (i % 7 == 0 && !pick.reportLoad(Double.NaN, 0, 10, 0)) {
        run.badReports.increment();
      } else if (i % 5 == 0) {
        pick.reportLoad(0.5, 0, 100 + salt, 1);
      }
      RequestOutcome outcome = RequestOutcome.values()[(i + salt) % RequestOutcome.values().length];
      end(pick, outcome, 1_000 + i);
      run.outcomes[outcome.ordinal()].increment();
    }
  }
}
