package dev.ballast.quota.fleet;

import static dev.ballast.quota.fleet.QuotaFleet.CAPACITY;
import static dev.ballast.quota.fleet.QuotaFleet.CLIENTS;
import static dev.ballast.quota.fleet.QuotaFleet.END;
import static dev.ballast.quota.fleet.QuotaFleet.GLOBAL_WINDOWS;
import static dev.ballast.quota.fleet.QuotaFleet.LONG_OUTAGE_END;
import static dev.ballast.quota.fleet.QuotaFleet.RESOURCE;
import static dev.ballast.quota.fleet.QuotaFleet.SAFE_CAPACITY;
import static dev.ballast.quota.fleet.QuotaFleet.SHARE_WINDOWS;

import dev.ballast.quota.QuotaService;
import dev.ballast.quota.ResourceQuota;
import dev.ballast.quota.ResourceQuota.Source;
import dev.ballast.quota.fleet.QuotaFleet.Window;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What one run of the {@link QuotaFleet} saw, in 100 ms slots from the start of the load: the
 * calls each client's quota admitted, counted in the slot it admitted them in; the rate each
 * client's bucket enforced, and the leases the quota server had outstanding, at the slot's first
 * look; and each source of a client's rate ({@link Source}) seen at any look within the slot. The
 * fleet looks every 5 ms of its clock.
 *
 * <p>Times are seconds from the start of the load, multiples of the slot (0.1 s).
 */
public final class FleetRecord {
  static final long SLOT_NANOS = Duration.ofMillis(100).toNanos();
  private static final int SLOTS = (int) Math.round(END * 10);

  private final long[][] admitted = new long[CLIENTS][SLOTS];
  private final double[][] enforced = new double[CLIENTS][SLOTS];
  private final int[][] sourcesSeen = new int[CLIENTS][SLOTS];
  private final Source[][] firstSource = new Source[CLIENTS][SLOTS];
  private final double[] granted = new double[SLOTS];
  private final boolean[] learning = new boolean[SLOTS];
  private final boolean[] looked = new boolean[SLOTS];

  FleetRecord() {
    for (double[] rates : enforced) {
      Arrays.fill(rates, Double.NaN);
    }
    Arrays.fill(granted, Double.NaN);
  }

  /** A look at the fleet within {@code slot}; {@code service} is the running server's, null while none runs. */
  void look(int slot, List<ResourceQuota> quotas, QuotaService service) {
    boolean first = !looked[slot];
    looked[slot] = true;
    for (int i = 0; i < CLIENTS; i++) {
      ResourceQuota quota = quotas.get(i);
      Source source = quota.source();
      sourcesSeen[i][slot] |= 1 << source.ordinal();
      if (first) {
        firstSource[i][slot] = source;
        enforced[i][slot] = quota.rate();
      }
    }
    if (first && service != null) {
      granted[slot] = service.granted(RESOURCE);
      learning[slot] = service.learning(RESOURCE);
    }
  }

  void admitted(int client, int slot) {
    admitted[client][slot]++;
  }

  /** Every slot start in [from, to), in seconds. */
  public static double[] slots(double from, double to) {
    int n = (int) Math.round((to - from) * 10);
    double[] at = new double[n];
    for (int k = 0; k < n; k++) {
      at[k] = Math.round(from * 10 + k) / 10.0;
    }
    return at;
  }

  /** All the calls the fleet's quotas admitted. */
  public long admittedCalls() {
    return Arrays.stream(admitted).flatMapToLong(Arrays::stream).sum();
  }

  /** Calls per second client {@code client}'s quota admitted over [from, to). */
  public double rate(int client, double from, double to) {
    long sum = 0;
    for (int s = slot("from", from); s < slot("to", to); s++) {
      sum += admitted[client][s];
    }
    return sum / (to - from);
  }

  /** Calls per second the whole fleet's quotas admitted over [from, to). */
  public double globalRate(double from, double to) {
    double sum = 0;
    for (int i = 0; i < CLIENTS; i++) {
      sum += rate(i, from, to);
    }
    return sum;
  }

  /** The highest global rate over any second within [from, to), the seconds starting at every slot. */
  public double highestSecond(double from, double to) {
    double highest = 0;
    for (int s = slot("from", from); s + 10 <= slot("to", to); s++) {
      highest = Math.max(highest, globalRate(s / 10.0, (s + 10) / 10.0));
    }
    return highest;
  }

  /** Whether client {@code client} was on {@code source} at some look within [from, to). */
  public boolean wasOn(int client, Source source, double from, double to) {
    for (int s = slot("from", from); s < slot("to", to); s++) {
      if ((sourcesSeen[client][s] & 1 << source.ordinal()) != 0) {
        return true;
      }
    }
    return false;
  }

  /** How many clients were on {@code source} at some look within [from, to). */
  public int clientsOn(Source source, double from, double to) {
    int n = 0;
    for (int i = 0; i < CLIENTS; i++) {
      n += wasOn(i, source, from, to) ? 1 : 0;
    }
    return n;
  }

  /** Where client {@code client}'s rate came from at the first look of the slot starting at {@code at}; null if not seen. */
  public Source sourceAt(int client, double at) {
    return firstSource[client][slot("at", at)];
  }

  /** The rate client {@code client}'s bucket enforced at the first look of the slot starting at {@code at}. */
  public double enforcedRate(int client, double at) {
    return enforced[client][slot("at", at)];
  }

  /** The leases the server had outstanding at the first look of the slot starting at {@code at}; NaN if none ran. */
  public double granted(double at) {
    return granted[slot("at", at)];
  }

  /** Whether the server was learning at the first look of the slot starting at {@code at}. */
  public boolean learning(double at) {
    return learning[slot("at", at)];
  }

  /**
   * The bound of docs/quota.md on the global rate over a window: the capacity, plus the safe
   * capacity of every client that was on it within the window (while its lease had expired, or as
   * what a learning server granted a client that held none).
   */
  public double bound(Window window) {
    return CAPACITY + clientsOn(Source.SAFE_CAPACITY, window.from(), window.to()) * SAFE_CAPACITY;
  }

  /** Client {@code client}'s admitted rate over the window against its max-min share: rate / share - 1. */
  public double shareError(int client, Window window) {
    return rate(client, window.from(), window.to()) / QuotaFleet.sharesAt(window.from())[client] - 1;
  }

  /** The largest {@link #shareError} in absolute value over the clients. */
  public double largestShareError(Window window) {
    double worst = 0;
    for (int i = 0; i < CLIENTS; i++) {
      worst = Math.max(worst, Math.abs(shareError(i, window)));
    }
    return worst;
  }

  /** The sum over the clients of min(demand, safe capacity) under demands B: the fleet's rate with every lease expired. */
  public static double safeRate() {
    double sum = 0;
    for (double demand : QuotaFleet.demandsB()) {
      sum += Math.min(demand, SAFE_CAPACITY);
    }
    return sum;
  }

  /** The figures: global rate per window against the limit and its bound, the outages, and every client against its share. */
  public String report() {
    StringBuilder report = new StringBuilder();
    for (Window w : GLOBAL_WINDOWS) {
      double global = globalRate(w.from(), w.to());
      report.append(String.format(Locale.ROOT,
          "global rate %4.0f..%2.0f s: %7.1f/s (%+.2f%% against the limit %.0f; bound %.0f; highest 1 s: %.0f/s)  %s%n",
          w.from(), w.to(), global, 100 * (global / CAPACITY - 1), CAPACITY, bound(w), highestSecond(w.from(), w.to()),
          w.label()));
    }
    double learned = LONG_OUTAGE_END + QuotaFleet.LEASE.toSeconds();
    report.append(String.format(Locale.ROOT,
        "clients on the safe capacity: %d during the short outage's window, %d during the long one's; "
            + "%.0f..%.0f s (every lease expired): %.1f/s (sum of min(demand, safe) %.0f); "
            + "%.0f..%.0f s (learning): %.1f/s; %.0f..%.0f s: %.1f/s%n",
        clientsOn(Source.SAFE_CAPACITY, GLOBAL_WINDOWS.get(2).from(), GLOBAL_WINDOWS.get(2).to()),
        clientsOn(Source.SAFE_CAPACITY, GLOBAL_WINDOWS.get(3).from(), GLOBAL_WINDOWS.get(3).to()),
        LONG_OUTAGE_END - 1, LONG_OUTAGE_END, globalRate(LONG_OUTAGE_END - 1, LONG_OUTAGE_END), safeRate(),
        LONG_OUTAGE_END, learned, globalRate(LONG_OUTAGE_END, learned),
        learned, learned + 2, globalRate(learned, learned + 2)));

    double[] weights = QuotaFleet.weights();
    report.append("client  weight");
    for (Window w : SHARE_WINDOWS) {
      report.append(String.format(Locale.ROOT, " | %5.1f..%2.0f s: demand  share   rate    err", w.from(), w.to()));
    }
    report.append('\n');
    for (int i = 0; i < CLIENTS; i++) {
      report.append(String.format(Locale.ROOT, "%6d  %6.0f", i, weights[i]));
      for (Window w : SHARE_WINDOWS) {
        report.append(String.format(Locale.ROOT, " | %14.0f %6.1f %6.1f %+6.1f%%",
            QuotaFleet.demandsAt(w.from())[i], QuotaFleet.sharesAt(w.from())[i], rate(i, w.from(), w.to()),
            100 * shareError(i, w)));
      }
      report.append('\n');
    }
    report.append("largest per-client error:");
    for (Window w : SHARE_WINDOWS) {
      report.append(String.format(Locale.ROOT, " %.1f%% (%s, %s..%s s)", 100 * largestShareError(w), w.label(),
          trim(w.from()), trim(w.to())));
    }
    report.append('\n');
    return report.toString();
  }

  private static String trim(double seconds) {
    return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds);
  }

  private static int slot(String name, double seconds) {
    long tenths = Math.round(seconds * 10);
    if (Math.abs(tenths - seconds * 10) > 1e-6 || tenths < 0 || tenths > SLOTS) {
      throw new IllegalArgumentException(name + ": " + seconds + " (expected: a multiple of 0.1 s, 0.." + END + ")");
    }
    return (int) tenths;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FleetRecord r
        && Arrays.deepEquals(admitted, r.admitted)
        && Arrays.deepEquals(enforced, r.enforced)
        && Arrays.deepEquals(sourcesSeen, r.sourcesSeen)
        && Arrays.deepEquals(firstSource, r.firstSource)
        && Arrays.equals(granted, r.granted)
        && Arrays.equals(learning, r.learning);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(admitted);
  }
}
