package dev.ballast.subset;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Stand-ins for subset members that are unavailable (refusing connections or in lame duck).
 *
 * <p>Each client draws its stand-ins from <em>all</em> backends outside its subset, in its own
 * rendezvous order, so the load of a failed backend spreads over the whole service instead of
 * piling onto the failed backend's subset peers, which is the chapter's argument for a different
 * shuffle per round. The result is a pure function of the subset and the set of unavailable
 * backends: when members recover, the client returns to its own subset; while members stay down,
 * existing stand-ins stay put (a stand-in is replaced only if it becomes unavailable itself).
 */
public final class Replacements {
  private Replacements() {}

  /**
   * The backends this client should use now: its available members, in subset order, followed by
   * one stand-in per unavailable member, best first. Fewer stand-ins are returned when fewer
   * backends outside the subset are available.
   *
   * @param subsetRanks the client's subset, as ranks in {@code backends}
   * @param available whether the backend at a rank can take new requests
   */
  public static int[] liveSubset(
      BackendSet backends, int[] subsetRanks, IntPredicate available, ClientIdentity client) {
    Objects.requireNonNull(backends, "backends");
    Objects.requireNonNull(available, "available");
    Objects.requireNonNull(client, "client");
    int n = backends.size();
    boolean[] excluded = new boolean[n];
    int[] live = new int[subsetRanks.length];
    int liveCount = 0;
    int missing = 0;
    for (int rank : subsetRanks) {
      if (rank < 0 || rank >= n) {
        throw new IllegalArgumentException("subsetRanks: " + rank + " (expected: 0.." + (n - 1) + ")");
      }
      if (excluded[rank]) {
        throw new IllegalArgumentException("subsetRanks: duplicate rank " + rank + " (expected: distinct ranks)");
      }
      excluded[rank] = true;
      if (available.test(rank)) {
        live[liveCount++] = rank;
      } else {
        missing++;
      }
    }
    if (missing == 0) {
      return live;
    }
    for (int rank = 0; rank < n; rank++) {
      if (!excluded[rank] && !available.test(rank)) {
        excluded[rank] = true;
      }
    }
    int[] standIns =
        RendezvousSubsetter.topByScore(backends, client.seedFor(0, Tags.REPLACEMENT), missing, excluded);
    int[] out = Arrays.copyOf(live, liveCount + standIns.length);
    System.arraycopy(standIns, 0, out, liveCount, standIns.length);
    return out;
  }
}
