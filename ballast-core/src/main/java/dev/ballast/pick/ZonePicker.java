package dev.ballast.pick;

import java.util.concurrent.atomic.LongAdder;

/**
 * A snapshot of zone routing: the policy's picker per zone (the client's own first), and the
 * shares of picks each other zone gets. A pick draws the zone, then lets that zone's picker choose;
 * when the zone has no backend that can take the request, it tries the client's own zone, then the
 * others from a random one on. Lock-free and allocation-free, as the pickers it holds are.
 */
final class ZonePicker implements Picker {
  private final Picker[] pickers;
  /** {@code spillUpTo[i]}: the shares of zones 1..i together; a draw at or above the last is a local pick. */
  private final double[] spillUpTo;
  private final PickRandom random;
  private final LongAdder crossZonePicks;

  ZonePicker(Picker[] pickers, double[] shares, PickRandom random, LongAdder crossZonePicks) {
    this.pickers = pickers;
    this.spillUpTo = new double[pickers.length];
    double sum = 0;
    for (int i = 1; i < pickers.length; i++) {
      sum += shares[i];
      spillUpTo[i] = sum;
    }
    this.random = random;
    this.crossZonePicks = crossZonePicks;
  }

  @Override
  public Pick pick() {
    return route(false, 0);
  }

  /** Within each zone the key keeps to one backend, as the policy keeps it; the zone is chosen as for any pick. */
  @Override
  public Pick pickByKey(long keyHash) {
    return route(true, keyHash);
  }

  private Pick route(boolean keyed, long keyHash) {
    int zones = pickers.length;
    int drawn = 0;
    if (zones > 1 && spillUpTo[zones - 1] > 0) {
      double x = random.nextDouble();
      for (int i = 1; i < zones; i++) {
        if (x < spillUpTo[i]) {
          drawn = i;
          break;
        }
      }
    }
    Pick pick = pickIn(drawn, keyed, keyHash);
    if (pick.isPicked()) {
      return counted(pick, drawn);
    }
    Pick failed = pick;
    if (drawn != 0) {
      pick = pickIn(0, keyed, keyHash);
      if (pick.isPicked()) {
        return pick;
      }
      failed = worse(failed, pick);
    }
    if (zones > 1) {
      int start = 1 + random.nextInt(zones - 1);
      for (int k = 0; k < zones - 1; k++) {
        int zone = 1 + (start - 1 + k) % (zones - 1);
        if (zone == drawn) {
          continue;
        }
        pick = pickIn(zone, keyed, keyHash);
        if (pick.isPicked()) {
          return counted(pick, zone);
        }
        failed = worse(failed, pick);
      }
    }
    return failed;
  }

  private Pick pickIn(int zone, boolean keyed, long keyHash) {
    return keyed ? pickers[zone].pickByKey(keyHash) : pickers[zone].pick();
  }

  private Pick counted(Pick pick, int zone) {
    if (zone != 0) {
      crossZonePicks.increment();
    }
    return pick;
  }

  /**
   * The failure that says most: a zone at its limit may free a place soon, so that is the reason
   * when any zone has it; otherwise none available, and no backends only when no zone has any.
   */
  private static Pick worse(Pick a, Pick b) {
    return rank(b.status()) > rank(a.status()) ? b : a;
  }

  private static int rank(PickStatus status) {
    return switch (status) {
      case NO_BACKENDS -> 0;
      case ALL_UNAVAILABLE -> 1;
      case ALL_AT_LIMIT -> 2;
      case PICKED -> 3;
    };
  }
}
