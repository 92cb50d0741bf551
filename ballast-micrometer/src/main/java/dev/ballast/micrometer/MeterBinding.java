package dev.ballast.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;

/**
 * The meters one call of {@link BallastMeters} or {@link BallastGrpcMeters} registered, removed
 * together by {@link #close()}. The meters hold what they read weakly (Micrometer's default for
 * gauges and function counters), and so does the binding: a bound object that becomes garbage
 * stays garbage, and once it is collected its meters leave the registry by themselves.
 */
public final class MeterBinding implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  private final Meters meters;
  private final Cleaner.Cleanable cleanable;
  private final List<Runnable> detachers = new CopyOnWriteArrayList<>();
  private final List<MeterBinding> children = new CopyOnWriteArrayList<>();
  private final List<Runnable> refreshers = new CopyOnWriteArrayList<>();

  /**
   * A binding whose meters leave {@code registry} when {@code owner} is collected or the binding is
   * closed, whichever comes first.
   */
  MeterBinding(MeterRegistry registry, Object owner) {
    this.meters = new Meters(Objects.requireNonNull(registry, "registry"));
    this.cleanable = CLEANER.register(Objects.requireNonNull(owner, "owner"), meters);
  }

  /** Records {@code meter} as this binding's; returns it. */
  <M extends Meter> M add(M meter) {
    meters.live.add(meter);
    return meter;
  }

  /** Registers a gauge reading {@code value} of {@code obj} (held weakly) as this binding's. */
  <T> Meter gauge(String name, T obj, ToDoubleFunction<T> value, String description, Tags tags) {
    return gauge(name, null, obj, value, description, tags);
  }

  /** {@link #gauge(String, Object, ToDoubleFunction, String, Tags)} with a base unit ({@code null}: none). */
  <T> Meter gauge(String name, String baseUnit, T obj, ToDoubleFunction<T> value, String description, Tags tags) {
    return add(Gauge.builder(BallastMeters.PREFIX + name, obj, value)
        .description(description).baseUnit(baseUnit).tags(tags).register(meters.registry));
  }

  /** Registers a counter reading the monotonic count {@code count} of {@code obj} (held weakly) as this binding's. */
  <T> Meter counter(String name, T obj, ToDoubleFunction<T> count, String description, Tags tags) {
    return add(FunctionCounter.builder(BallastMeters.PREFIX + name, obj, count)
        .description(description).tags(tags).register(meters.registry));
  }

  /** Removes {@code meter} from the registry now (a backend that left the subset). */
  void remove(Meter meter) {
    if (meters.live.remove(meter)) {
      meters.registry.remove(meter);
    }
  }

  /** Runs {@code detacher} on close, e.g. to stop listening to the bound object. */
  void onClose(Runnable detacher) {
    detachers.add(detacher);
  }

  /** Runs {@code refresher} on {@link #refresh()}: what refreshes its meters between scheduled refreshes. */
  void onRefresh(Runnable refresher) {
    refreshers.add(refresher);
  }

  /** Refreshes now the meters whose set follows the bound object (the per-caller sheds), with the adopted bindings'. */
  void refresh() {
    for (Runnable refresher : refreshers) {
      refresher.run();
    }
    for (MeterBinding child : children) {
      child.refresh();
    }
  }

  /** Closes {@code child} with this binding. */
  void adopt(MeterBinding child) {
    children.add(child);
  }

  /** Forgets {@code child} after closing it (a gRPC channel's balancer that closed). */
  void closeChild(MeterBinding child) {
    children.remove(child);
    child.close();
  }

  /**
   * How many meters this binding (with the bindings it adopted) has in the registry now.
   *
   * @return the count; 0 once closed
   */
  public int meterCount() {
    int count = meters.live.size();
    for (MeterBinding child : children) {
      count += child.meterCount();
    }
    return count;
  }

  /** Stops listening to the bound object and removes every meter of this binding. Idempotent. */
  @Override
  public void close() {
    for (Runnable detacher : detachers) {
      detacher.run();
    }
    detachers.clear();
    refreshers.clear();
    for (MeterBinding child : children) {
      child.close();
    }
    children.clear();
    cleanable.clean();
  }

  /** The meters and their registry: the cleaning action, so it must not reach the bound object. */
  private static final class Meters implements Runnable {
    final MeterRegistry registry;
    final Set<Meter> live = ConcurrentHashMap.newKeySet();

    Meters(MeterRegistry registry) {
      this.registry = registry;
    }

    @Override
    public void run() {
      for (Meter meter : live) {
        registry.remove(meter);
      }
      live.clear();
    }
  }
}
