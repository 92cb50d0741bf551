package dev.ballast.overload;

import dev.ballast.internal.Padded;
import dev.ballast.internal.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One caller as a limiter's fair admission tracks it. Its requests write three counters (arrived,
 * in flight, shed), each with one atomic instruction and no allocation; everything else is the
 * estimate of what the caller wants, written once per slot by the one thread that recomputes the
 * shares ({@link FairShares#recompute}) and read by the next.
 */
final class CallerState extends Padded implements AdmissionLimiter.Caller {
  private static final VarHandle IN_FLIGHT = VarHandles.field(MethodHandles.lookup(), "inFlight", int.class);
  private static final VarHandle ARRIVED = VarHandles.field(MethodHandles.lookup(), "arrived", long.class);
  private static final VarHandle SHED = VarHandles.field(MethodHandles.lookup(), "shed", long.class);

  final String id;
  final double weight;
  /** The table it belongs to, so that a caller of another limiter is refused; null without fair admission. */
  final FairShares owner;
  private volatile int inFlight;
  private volatile long arrived;
  private volatile long shed;

  // The estimate, written under FairShares' recompute flag, which orders one recompute after the last.
  /** The counters at the last recompute. */
  long arrivedBefore;
  long shedBefore;
  /** Averages over about a window: requests in flight, arrivals and admissions per slot. */
  double inFlightAverage;
  double arrivalsAverage;
  double admittedAverage;
  /** What the caller wants in flight, from the averages; 0 for a caller not heard from in a while. */
  volatile double demand;
  /** Whether it wants no more than its fair share, as of the last recompute. */
  volatile boolean withinShare = true;
  /** Recomputes since the caller last sent a request or held one in flight. */
  volatile int idleSlots;

  CallerState(String id, double weight, FairShares owner) {
    this.id = id;
    this.weight = weight;
    this.owner = owner;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public int weight() {
    return (int) weight;
  }

  @Override
  public int inFlight() {
    return inFlight;
  }

  @Override
  public long shed() {
    return shed;
  }

  @Override
  public double demand() {
    return demand;
  }

  @Override
  public double fairShare() {
    return owner == null ? Double.POSITIVE_INFINITY : owner.level() * weight;
  }

  void arrive() {
    ARRIVED.getAndAdd(this, 1L);
  }

  long arrived() {
    return arrived;
  }

  void onShed() {
    SHED.getAndAdd(this, 1L);
  }

  /** Counts an admission made on the limiter's own count. */
  void admitted() {
    IN_FLIGHT.getAndAdd(this, 1);
  }

  /** Takes a place under {@code allowance}, or says there is none. */
  boolean reserveUnder(double allowance) {
    for (;;) {
      int current = inFlight;
      if (current >= allowance) {
        return false;
      }
      if (IN_FLIGHT.compareAndSet(this, current, current + 1)) {
        return true;
      }
    }
  }

  void ended() {
    IN_FLIGHT.getAndAdd(this, -1);
  }

  @Override
  public String toString() {
    return "caller " + dev.ballast.internal.Ranges.quote(id) + " (weight " + (int) weight + ", " + inFlight
        + " in flight, " + shed + " shed)";
  }
}
