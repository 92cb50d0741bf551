package dev.ballast.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.testing.FakeClock;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

final class BackendStateTransitionsTest {
  private final FakeClock clock = new FakeClock();

  private Backend backend(HealthConfig config) {
    return SubsetHealth.create(config, clock).update(List.of("b0")).get(0);
  }

  @Test
  void aNewBackendGetsNoRequestsUntilItsConnectionIsUp() {
    Backend backend = backend(HealthConfig.defaults());

    assertThat(backend.state()).isEqualTo(BackendState.CONNECTING);
    assertThat(backend.tryAcquire()).isFalse();

    backend.onConnected();

    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
    assertThat(backend.tryAcquire()).isTrue();
  }

  @Test
  void aRefusingBackendGetsNoRequestsAndComesBackOnReconnect() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();

    backend.onConnectFailed();
    assertThat(backend.state()).isEqualTo(BackendState.REFUSING);
    assertThat(backend.tryAcquire()).isFalse();

    backend.onConnecting();
    assertThat(backend.tryAcquire()).isFalse();
    backend.onConnected();
    assertThat(backend.tryAcquire()).isTrue();
  }

  @Test
  void lameDuckStopsNewRequestsWhileInFlightOnesEndNormally() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.tryAcquire()).isTrue();

    backend.onLameDuck();

    assertThat(backend.state()).isEqualTo(BackendState.LAME_DUCK);
    assertThat(backend.acceptsNewRequests()).isFalse();
    assertThat(backend.tryAcquire()).isFalse();
    backend.release(RequestOutcome.SUCCESS);
    backend.release(RequestOutcome.SUCCESS);
    assertThat(backend.activeRequests()).isZero();
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(2);
  }

  @Test
  void aHealthCheckAnswerMovesBetweenLameDuckAndHealthy() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();

    backend.onHealthCheck(false);
    assertThat(backend.state()).isEqualTo(BackendState.LAME_DUCK);

    backend.onHealthCheck(true);
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
  }

  @Test
  void aConnectionToABackendInLameDuckDoesNotMakeItHealthy() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onLameDuck();

    backend.onConnected();

    assertThat(backend.state()).isEqualTo(BackendState.LAME_DUCK);
  }

  @Test
  void flowControlSkipsABackendAtItsActiveRequestLimit() {
    Backend backend = backend(HealthConfig.builder().activeRequestLimit(3).build());
    backend.onConnected();

    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.tryAcquire()).isFalse();
    assertThat(backend.acceptsNewRequests()).isFalse();
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);

    backend.release(RequestOutcome.CANCELLED);

    assertThat(backend.acceptsNewRequests()).isTrue();
    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.requestsStarted()).isEqualTo(4);
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isEqualTo(1);
  }

  @Test
  void aQuietBackendBecomesIdleIsCheckedLessOftenAndWakesOnTheNextRequest() {
    SubsetHealth health =
        SubsetHealth.create(
            HealthConfig.builder()
                .idleAfter(Duration.ofSeconds(30))
                .healthCheckInterval(Duration.ofSeconds(5))
                .idleHealthCheckInterval(Duration.ofSeconds(60))
                .build(),
            clock);
    Backend backend = health.update(List.of("b0")).get(0);
    backend.onConnected();
    health.refreshIdle();

    clock.advance(Duration.ofSeconds(29));
    health.refreshIdle();
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
    assertThat(backend.healthCheckIntervalNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());

    clock.advance(Duration.ofSeconds(1));
    health.refreshIdle();
    assertThat(backend.state()).isEqualTo(BackendState.IDLE);
    assertThat(backend.healthCheckIntervalNanos()).isEqualTo(Duration.ofSeconds(60).toNanos());
    assertThat(backend.acceptsNewRequests()).isTrue();

    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
  }

  @Test
  void aBackendWithARequestInFlightNeverBecomesIdle() {
    SubsetHealth health =
        SubsetHealth.create(HealthConfig.builder().idleAfter(Duration.ofSeconds(1)).build(), clock);
    Backend backend = health.update(List.of("b0")).get(0);
    backend.onConnected();
    backend.tryAcquire();

    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(1));
      health.refreshIdle();
    }

    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
  }

  @Test
  void warmUpIsOffByDefault() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();

    assertThat(backend.warmUpFactor()).isEqualTo(1.0);
  }

  @Test
  void warmUpRampsLinearlyOverItsWindowAfterEveryRestart() {
    Backend backend =
        backend(
            HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).warmUpStartFactor(0.1).build());
    backend.onConnected();

    assertThat(backend.warmUpFactor()).isEqualTo(0.1);
    clock.advance(Duration.ofSeconds(5));
    assertThat(backend.warmUpFactor()).isCloseTo(0.55, org.assertj.core.data.Offset.offset(1e-12));
    clock.advance(Duration.ofSeconds(5));
    assertThat(backend.warmUpFactor()).isEqualTo(1.0);

    backend.onConnectFailed();
    backend.onConnected();
    assertThat(backend.warmUpFactor()).isEqualTo(0.1);
  }

  @Test
  void leavingLameDuckIsNotARestartAndDoesNotWarmUp() {
    Backend backend =
        backend(HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).build());
    backend.onConnected();
    clock.advance(Duration.ofSeconds(10));

    backend.onLameDuck();
    backend.onHealthCheck(true);

    assertThat(backend.warmUpFactor()).isEqualTo(1.0);
  }

  @Test
  void aRestartThatPassesThroughLameDuckRampsIn() {
    Backend backend =
        backend(HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).warmUpStartFactor(0.1).build());
    backend.onConnected();
    clock.advance(Duration.ofSeconds(60));
    assertThat(backend.warmUpFactor()).isEqualTo(1.0);

    backend.onConnectFailed(); // the task restarts
    backend.onHealthCheck(false); // back up, but not serving while it initialises
    backend.onHealthCheck(true); // serving

    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
    assertThat(backend.warmUpFactor()).isEqualTo(0.1);
  }

  /**
   * A connection failure on another thread lands while the backend leaves lame duck, between the
   * move to HEALTHY and the look at whether it was down: the outage must stay on record, so that
   * the task's return after its restart still ramps in. The clock read inside the move runs the
   * other thread's callback at exactly that point.
   */
  @Test
  void aConnectionFailureRacingTheEndOfLameDuckStillRampsTheNextReturnIn() {
    Runnable[] atNextClockRead = new Runnable[1];
    long[] now = {1_000_000_000L};
    NanoClock racing = () -> {
      Runnable other = atNextClockRead[0];
      atNextClockRead[0] = null;
      if (other != null) {
        other.run();
      }
      return now[0];
    };
    HealthConfig config =
        HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).warmUpStartFactor(0.1).build();
    Backend backend = SubsetHealth.create(config, racing).update(List.of("b0")).get(0);
    backend.onConnected();
    now[0] += Duration.ofSeconds(60).toNanos();
    assertThat(backend.warmUpFactor()).isEqualTo(1.0);
    backend.onLameDuck(); // from service

    atNextClockRead[0] = backend::onConnectFailed;
    backend.onHealthCheck(true);
    assertThat(backend.state()).isEqualTo(BackendState.REFUSING);

    now[0] += Duration.ofSeconds(60).toNanos(); // the task restarts
    backend.onConnected();
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
    assertThat(backend.warmUpFactor()).isEqualTo(0.1);
  }

  /**
   * A serving backend whose connection is rotated (the server's maximum connection age, a GOAWAY)
   * reconnects to the same process: no ramp. One that reconnects after lame duck restarted.
   */
  @Test
  void aRoutineReconnectDoesNotRampButAReconnectAfterLameDuckDoes() {
    Backend backend =
        backend(HealthConfig.builder().warmUpWindow(Duration.ofSeconds(10)).warmUpStartFactor(0.1).build());
    backend.onConnected();
    clock.advance(Duration.ofSeconds(60));

    backend.onConnecting();
    backend.onConnected();
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
    assertThat(backend.warmUpFactor()).isEqualTo(1.0);

    backend.onLameDuck();
    backend.onConnecting();
    backend.onConnected();
    assertThat(backend.state()).isEqualTo(BackendState.HEALTHY);
    assertThat(backend.warmUpFactor()).isEqualTo(0.1);
  }

  @Test
  void aBackendThatLeftItsSubsetTakesNoNewRequestWhateverTheTransportReports() {
    SubsetHealth health = SubsetHealth.create(HealthConfig.defaults(), clock);
    Backend leaving = health.update(List.of("a", "b")).get(1);
    leaving.onConnected();
    assertThat(leaving.tryAcquire()).isTrue();

    health.update(List.of("a"));

    assertThat(leaving.acceptsNewRequests()).isFalse();
    assertThat(leaving.tryAcquire()).isFalse();
    // Late callbacks for the old connection do not bring it back.
    leaving.onConnected();
    leaving.onHealthCheck(true);
    leaving.onConnecting();
    leaving.onLameDuck();
    assertThat(leaving.state()).isEqualTo(BackendState.REFUSING);
    assertThat(leaving.tryAcquire()).isFalse();
    // The request in flight ends normally.
    leaving.release(RequestOutcome.SUCCESS);
    assertThat(leaving.activeRequests()).isZero();
    assertThat(leaving.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(1);
    // The key, back in the subset, gets a backend of its own.
    Backend back = health.update(List.of("a", "b")).get(1);
    assertThat(back).isNotSameAs(leaving);
    back.onConnected();
    assertThat(back.tryAcquire()).isTrue();
  }

  @Test
  void aNullOutcomeIsRejectedAndEndsNothing() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    assertThat(backend.tryAcquire()).isTrue();

    assertThatThrownBy(() -> backend.release(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("outcome: null (expected: a RequestOutcome)");

    assertThat(backend.activeRequests()).isEqualTo(1);
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isZero();
  }

  /**
   * Two unmatched ends at once: the second finds the first's borrow (in-flight bits near 2^20)
   * before its undo. Bounded: a fixed number of ends per thread, no clock.
   */
  @Test
  void unmatchedEndsFromSeveralThreadsAtOnceLeaveTheBackendUsable() throws InterruptedException {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    int threads = 2;
    int endsPerThread = 500_000;
    onThreadsAtOnce(threads, () -> {
      for (int i = 0; i < endsPerThread; i++) {
        backend.release(RequestOutcome.CANCELLED);
      }
    });

    assertThat(backend.activeRequests()).isZero();
    assertThat(backend.requestsStarted()).isZero();
    assertThat(backend.requestsEnded(RequestOutcome.CANCELLED)).isZero();
    assertThat(backend.unmatchedEnds()).isEqualTo((long) threads * endsPerThread);
    assertThat(backend.tryAcquire()).isTrue();
  }

  @Test
  void anAcquireWithAServiceTimeMovesThePredictedEndFromNowOrFromWhereItWas() {
    Backend backend = backend(HealthConfig.builder().activeRequestLimit(2).build());
    backend.onConnected();
    assertThat(backend.predictedEndNanos()).isEqualTo(Long.MIN_VALUE);

    assertThat(backend.tryAcquire(1_000, 10)).isTrue();
    assertThat(backend.predictedEndNanos()).isEqualTo(1_010);
    // Still ahead of now: the next request queues behind it.
    assertThat(backend.tryAcquire(1_005, 10)).isTrue();
    assertThat(backend.predictedEndNanos()).isEqualTo(1_020);
    // At its limit: no request, and the end stays.
    assertThat(backend.tryAcquire(1_006, 10)).isFalse();
    assertThat(backend.predictedEndNanos()).isEqualTo(1_020);
    backend.release(RequestOutcome.SUCCESS);
    // Past: the next request starts from now.
    assertThat(backend.tryAcquire(5_000, 10)).isTrue();
    assertThat(backend.predictedEndNanos()).isEqualTo(5_010);
    assertThat(backend.activeRequests()).isEqualTo(2);
    assertThat(backend.requestsStarted()).isEqualTo(3);

    // An absurd service time saturates instead of wrapping round to the earliest time.
    backend.release(RequestOutcome.SUCCESS);
    assertThat(backend.tryAcquire(5_000, Long.MAX_VALUE)).isTrue();
    assertThat(backend.predictedEndNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aBackendThatTakesNoRequestsKeepsItsPredictedEnd() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    assertThat(backend.tryAcquire(1_000, 10)).isTrue();

    backend.onLameDuck();

    assertThat(backend.tryAcquire(2_000, 10)).isFalse();
    assertThat(backend.predictedEndNanos()).isEqualTo(1_010);
    assertThat(backend.requestsStarted()).isEqualTo(1);
  }

  @Test
  void aServiceTimeBelowOneNanosecondIsRejectedAndStartsNothing() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();

    assertThatThrownBy(() -> backend.tryAcquire(1_000, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("serviceNanos: 0 (expected: 1 or more)");
    assertThatThrownBy(() -> backend.tryAcquire(1_000, -5))
        .hasMessage("serviceNanos: -5 (expected: 1 or more)");
    assertThat(backend.requestsStarted()).isZero();
    assertThat(backend.predictedEndNanos()).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void resettingThePredictedEndLosesToARequestThatMovedIt() {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    assertThat(backend.tryAcquire(1_000, 10)).isTrue();
    long seen = backend.predictedEndNanos();
    assertThat(backend.tryAcquire(1_000, 10)).isTrue();

    assertThat(backend.resetPredictedEnd(seen)).isFalse();
    assertThat(backend.predictedEndNanos()).isEqualTo(1_020);
    assertThat(backend.resetPredictedEnd(1_020)).isTrue();
    assertThat(backend.predictedEndNanos()).isEqualTo(Long.MIN_VALUE);
  }

  /**
   * The layout that fair share's speed on two cores rests on: the in-flight word and the
   * predicted end are neighbours (HotSpot lays out fields of one size in declaration order), so a
   * pick that moves both dirties one cache line, not two. Fails if a field is declared between
   * them or they are moved apart.
   */
  @Test
  void theInFlightWordAndThePredictedEndAreNeighbours() throws ReflectiveOperationException {
    long flow = fieldOffset(BackendRequestFields.class, "flow");
    long end = fieldOffset(BackendRequestFields.class, "predictedEndNanos");

    assertThat(Math.abs(end - flow)).isEqualTo(Long.BYTES);
  }

  /**
   * What a request reads and writes in its backend (state, flow word, predicted end, limit, admit
   * limit, gate, key, and outlier ejection's record and latency sums) lies within the first 72 bytes of the
   * object, header included: two cache lines at most, where the state and the gate used to sit a
   * line apart from the flow word and the latency sums in an object of their own. Fails if a field
   * moves out of BackendRequestFields or the subclass's fields are laid out first.
   */
  @Test
  void whatARequestTouchesComesFirstInTheObject() throws ReflectiveOperationException {
    long last = 0;
    for (String name : new String[] {
        "key", "gate", "limit", "admitLimit", "flow", "predictedEndNanos", "state",
        "logLatencySum", "latencySamples", "ejection"}) {
      long offset = fieldOffset(TrackedBackend.class, name);
      assertThat(offset).as(name).isLessThan(72);
      last = Math.max(last, offset);
    }
    for (java.lang.reflect.Field own : TrackedBackend.class.getDeclaredFields()) {
      if (!java.lang.reflect.Modifier.isStatic(own.getModifiers())) {
        assertThat(fieldOffset(TrackedBackend.class, own.getName())).as(own.getName()).isGreaterThan(last);
      }
    }
  }

  /** The field's offset in its object, through reflection, so that the build names no internal API (javac warns on sun.misc.Unsafe). */
  private static long fieldOffset(Class<?> type, String name) throws ReflectiveOperationException {
    Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
    java.lang.reflect.Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
    theUnsafe.setAccessible(true);
    Object unsafe = theUnsafe.get(null);
    java.lang.reflect.Method offset = unsafeClass.getMethod("objectFieldOffset", java.lang.reflect.Field.class);
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (java.lang.reflect.Field field : c.getDeclaredFields()) {
        if (field.getName().equals(name) && !java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
          return (long) offset.invoke(unsafe, field);
        }
      }
    }
    throw new NoSuchFieldException(type.getName() + "." + name);
  }

  /** Racing requests each move the predicted end: none is lost. */
  @Test
  void requestsFromSeveralThreadsAllMoveThePredictedEnd() throws InterruptedException {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    int threads = 2;
    int perThread = 200_000;
    onThreadsAtOnce(threads, () -> {
      for (int i = 0; i < perThread; i++) {
        // "Now" stays at 0, so every request queues behind the others: the end is their sum.
        if (!backend.tryAcquire(0, 3)) {
          // Each thread holds one request at most, far below the limit: the counts below fail.
          return;
        }
        backend.release(RequestOutcome.SUCCESS);
      }
    });

    assertThat(backend.predictedEndNanos()).isEqualTo(3L * threads * perThread);
    assertThat(backend.requestsStarted()).isEqualTo((long) threads * perThread);
    assertThat(backend.activeRequests()).isZero();
  }

  /**
   * The interleaving that the test above can only hope to meet, forced: an end lands between
   * another unmatched end's subtraction and its undo.
   */
  @Test
  void anEndThatLandsInsideAnotherUnmatchedEndsBorrowIsUnmatchedToo() throws ReflectiveOperationException {
    Backend backend = backend(HealthConfig.defaults());
    backend.onConnected();
    VarHandle flow =
        MethodHandles.privateLookupIn(TrackedBackend.class, MethodHandles.lookup())
            .findVarHandle(TrackedBackend.class, "flow", long.class);
    // The first unmatched end's subtraction: nothing was in flight, so it borrowed.
    flow.getAndAdd(backend, -1L);
    assertThat(backend.activeRequests()).isGreaterThan(backend.activeRequestLimit());

    backend.release(RequestOutcome.SUCCESS);
    // The first end's undo.
    flow.getAndAdd(backend, 1L);

    assertThat(backend.activeRequests()).isZero();
    assertThat(backend.unmatchedEnds()).isEqualTo(1);
    assertThat(backend.tryAcquire()).isTrue();
  }

  /**
   * Threads start and end requests at a small limit while every seventh request is ended twice.
   * Once they stop, each second end has been counted exactly once and the counts are exact,
   * whatever interleaved: a second end that took the place of another thread's request in flight
   * is found when that request's own end finds nothing in flight.
   */
  @Test
  void requestsEndedTwiceAmongRacingRequestsAreEachCountedOnce() throws InterruptedException {
    Backend backend = backend(HealthConfig.builder().activeRequestLimit(2).build());
    backend.onConnected();
    AtomicLong acquired = new AtomicLong();
    AtomicLong endedTwice = new AtomicLong();
    int threads = 3;
    int attempts = 200_000;
    onThreadsAtOnce(threads, () -> {
      for (int i = 0; i < attempts; i++) {
        if (backend.tryAcquire()) {
          acquired.incrementAndGet();
          backend.release(RequestOutcome.SUCCESS);
          if (i % 7 == 0) {
            endedTwice.incrementAndGet();
            backend.release(RequestOutcome.SUCCESS);
          }
        }
      }
    });

    assertThat(endedTwice.get()).isPositive();
    assertThat(backend.unmatchedEnds()).isEqualTo(endedTwice.get());
    assertThat(backend.activeRequests()).isZero();
    assertThat(backend.requestsStarted()).isEqualTo(acquired.get());
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(acquired.get());
    assertThat(backend.tryAcquire()).isTrue();
    assertThat(backend.activeRequests()).isEqualTo(1);
  }

  /** At a limit of one, threads racing to acquire never have two requests in flight at once. */
  @Test
  void racingAcquiresNeverPutARequestAboveTheLimit() throws InterruptedException {
    Backend backend = backend(HealthConfig.builder().activeRequestLimit(1).build());
    backend.onConnected();
    AtomicInteger holding = new AtomicInteger();
    AtomicInteger mostHeld = new AtomicInteger();
    AtomicLong acquired = new AtomicLong();
    int threads = 3;
    int attempts = 200_000;
    onThreadsAtOnce(threads, () -> {
      for (int i = 0; i < attempts; i++) {
        if (backend.tryAcquire()) {
          mostHeld.accumulateAndGet(holding.incrementAndGet(), Math::max);
          holding.decrementAndGet();
          acquired.incrementAndGet();
          backend.release(RequestOutcome.SUCCESS);
        }
      }
    });

    assertThat(mostHeld.get()).isEqualTo(1);
    assertThat(backend.activeRequests()).isZero();
    assertThat(backend.unmatchedEnds()).isZero();
    assertThat(backend.requestsStarted()).isEqualTo(acquired.get());
    assertThat(backend.requestsEnded(RequestOutcome.SUCCESS)).isEqualTo(acquired.get());
  }

  @Test
  void theSubsetKeepsABackendsCountersWhileItsKeyStays() {
    SubsetHealth health = SubsetHealth.create(HealthConfig.defaults(), clock);
    Backend first = health.update(List.of("a", "b")).get(0);
    first.onConnected();
    first.tryAcquire();

    List<Backend> next = health.update(List.of("c", "a"));

    assertThat(next.get(1)).isSameAs(first);
    assertThat(next.get(1).activeRequests()).isEqualTo(1);
    assertThat(health.backend("b")).isNull();
    assertThat(health.backend("c").state()).isEqualTo(BackendState.CONNECTING);
  }

  @Test
  void theSubsetRejectsANullListOfKeys() {
    SubsetHealth health = SubsetHealth.create(HealthConfig.defaults(), clock);

    assertThatThrownBy(() -> health.update(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keys: null (expected: a list of backend keys, empty for none)");
  }

  @Test
  void theSubsetRejectsDuplicateKeys() {
    SubsetHealth health = SubsetHealth.create(HealthConfig.defaults(), clock);

    assertThatThrownBy(() -> health.update(List.of("a", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keys: duplicate key 'a' (expected: unique keys)");
  }

  /** Runs {@code body} on {@code threads} threads released together, and waits for them all. */
  private static void onThreadsAtOnce(int threads, Runnable body) throws InterruptedException {
    Thread[] workers = new Thread[threads];
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      workers[t] = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        body.run();
      });
      workers[t].start();
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
  }
}
