package dev.ballast.pick;

import dev.ballast.health.Backend;
import dev.ballast.probe.ProbeReceiver;
import dev.ballast.probe.ProbeSender;
import java.util.Objects;

/**
 * {@code prequal_probing}: Prequal's probing balancer (Wydrowski, Kleinberg, Rumble, Vahdat,
 * NSDI 2024). Each pick sends a few asynchronous probes to random backends of the subset through
 * the transport's {@link ProbeSender}; the answers fill a small {@link ProbePool}; the pick takes
 * the pool's hot-cold choice and never waits for a probe.
 *
 * <p>When the pool has nothing usable (the first picks, every answer expired or used up), the pick
 * falls back to power of two choices on this client's own requests in flight: it needs no answer
 * from anyone, costs a random draw and two reads, and steers away from a backend that is slow for
 * this client, which is what a probe would have said, only later. The fallback is also the answer
 * when the pool's choice cannot take the request (it left service, or reached its limit).
 */
final class PrequalProbingPolicy implements Policy, PickerFactory {
  private final PrequalProbingConfig config;
  private final long maxAgeNanos;
  private final int wholeProbes;
  private final double fractionProbe;

  PrequalProbingPolicy(PrequalProbingConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.maxAgeNanos = config.maxAge().toNanos();
    this.wholeProbes = (int) config.probesPerPick();
    this.fractionProbe = config.probesPerPick() - wholeProbes;
  }

  @Override
  public String name() {
    return "prequal_probing";
  }

  PrequalProbingConfig config() {
    return config;
  }

  @Override
  public boolean needsProbes() {
    return true;
  }

  @Override
  public Slot newSlot(Backend backend, PolicyContext context) {
    return new PlainSlot(backend, context);
  }

  @Override
  public Picker newPicker(Slot[] slots, PolicyContext context) {
    ProbeSender sender = context.probes();
    if (sender == null) {
      throw new IllegalStateException(
          "probes: none (expected: a ProbeSender, given to Balancer.builder(policy).probes(...), for " + name() + ")");
    }
    ProbePool pool = new ProbePool(config.poolSize(), config.hotQuantile(), config.reuseBudget(), maxAgeNanos);
    return new ProbingPicker(slots, context, context.newPickRandom(), pool, sender, this);
  }

  /** The idle probe: one per refresh, so the pool stays fresh when picks are rare. */
  @Override
  public Picker refresh(Picker current, Slot[] slots, PolicyContext context) {
    ((ProbingPicker) current).sendProbes(1);
    return current;
  }

  @Override
  public long refreshIntervalNanos() {
    return config.idleProbeInterval().toNanos();
  }

  @Override
  public String toString() {
    return name() + "(" + config + ")";
  }

  /** Where one backend's answers enter one picker's pool: preallocated, so sending allocates nothing. */
  static final class PoolEntrance implements ProbeReceiver {
    private final ProbePool pool;
    private final int slot;
    private final PolicyContext context;

    PoolEntrance(ProbePool pool, int slot, PolicyContext context) {
      this.pool = pool;
      this.slot = slot;
      this.context = context;
    }

    @Override
    public void onProbe(int requestsInFlight, long latencyNanos) {
      if (!pool.add(slot, requestsInFlight, latencyNanos, context.clock().nanoTime())) {
        context.badInputs().lostProbes.increment();
      }
    }

    @Override
    public void onProbeFailed() {
      // Nothing enters the pool; the backend's health is the transport's to judge.
    }
  }

  static final class ProbingPicker implements Picker {
    private final Slot[] slots;
    private final PolicyContext context;
    private final PickRandom random;
    private final ProbePool pool;
    private final ProbeSender sender;
    private final PoolEntrance[] entrances;
    private final int wholeProbes;
    private final double fractionProbe;

    ProbingPicker(Slot[] slots, PolicyContext context, PickRandom random, ProbePool pool, ProbeSender sender,
        PrequalProbingPolicy policy) {
      this.slots = slots;
      this.context = context;
      this.random = random;
      this.pool = pool;
      this.sender = sender;
      this.wholeProbes = policy.wholeProbes;
      this.fractionProbe = policy.fractionProbe;
      this.entrances = new PoolEntrance[slots.length];
      for (int i = 0; i < slots.length; i++) {
        entrances[i] = new PoolEntrance(pool, i, context);
      }
    }

    ProbePool pool() {
      return pool;
    }

    @Override
    public Pick pick() {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return FailedPick.NO_BACKENDS;
      }
      int probes = wholeProbes;
      if (fractionProbe > 0 && random.nextDouble() < fractionProbe) {
        probes++;
      }
      sendProbes(probes);
      long now = context.clock().nanoTime();
      for (int attempt = 0; attempt < 3; attempt++) {
        long selection = pool.select(now);
        if (selection == ProbePool.NONE) {
          break;
        }
        Slot chosen = all[ProbePool.slotOf(selection)];
        if (chosen.backend.tryAcquire()) {
          pool.use(selection);
          return chosen;
        }
        pool.remove(selection);
      }
      return fallback(all, n);
    }

    /** Sends {@code count} probes to random backends that take requests now. */
    void sendProbes(int count) {
      Slot[] all = slots;
      int n = all.length;
      if (n == 0) {
        return;
      }
      for (int p = 0; p < count; p++) {
        int i = random.nextInt(n);
        Backend backend = all[i].backend;
        if (backend.acceptsNewRequests()) {
          sender.send(backend, entrances[i]);
        }
      }
    }

    /** Power of two choices on this client's requests in flight, then the least busy of all. */
    private Pick fallback(Slot[] all, int n) {
      if (n > 1) {
        for (int attempt = 0; attempt < 3; attempt++) {
          long pair = random.twoDistinct(n);
          int i = PickRandom.first(pair);
          int j = PickRandom.second(pair);
          int a = all[i].backend.activeRequestsIfAccepting();
          int b = all[j].backend.activeRequestsIfAccepting();
          Slot chosen = a >= 0 && (b < 0 || a <= b) ? all[i] : b >= 0 ? all[j] : null;
          if (chosen != null && chosen.backend.tryAcquire()) {
            return chosen;
          }
        }
      }
      for (int round = 0; round < n; round++) {
        Slot best = null;
        int fewest = Integer.MAX_VALUE;
        for (Slot slot : all) {
          int active = slot.backend.activeRequestsIfAccepting();
          if (active >= 0 && active < fewest) {
            best = slot;
            fewest = active;
          }
        }
        if (best == null) {
          break;
        }
        if (best.backend.tryAcquire()) {
          return best;
        }
      }
      return FailedPick.of(all);
    }
  }
}
