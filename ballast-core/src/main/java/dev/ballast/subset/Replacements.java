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
 * shuffle per round.
 *
 * <p>The result is a pure function of the subset and the set of backends unavailable now: no state
 * is kept between calls, so it is deterministic and the same in every process. The stand-ins are
 * the {@code m} best available backends outside the subset in the client's rendezvous order,
 * {@code m} the number of unavailable members. Hence:
 *
 * <ul>
 *   <li>when members recover, the client returns to its own subset;
 *   <li>when another member fails, existing stand-ins stay and one more is added; when a stand-in
 *       fails, only that one is replaced;
 *   <li>when a backend outside the subset recovers and ranks above a current stand-in, it becomes a
 *       stand-in and the lowest-ranked stand-in is dropped, although that one is healthy. Stand-ins
 *       follow the current unavailable set, not the history: for 300 clients, 300 backends and
 *       subsets of 30 under {@code orthogonal_lots}, client 3 with member 110 down uses stand-in 97
 *       while backend 144 is also down, and switches to 144 when 144 recovers.
 * </ul>
 *
 * <p>That last case is the cost of being stateless: a recovery elsewhere in the service can move a
 * healthy stand-in (one connection closed and one opened for each client whose order puts the
 * recovered backend above one of its stand-ins). A caller that must keep stand-ins in place has to
 * remember them itself.
 */
public final class Replacements {
  private Replacements() {}

  /**
   * The backends this client should use now: its available members, in subset order, followed by
   * one stand-in per unavailable member, best first. Fewer stand-ins are returned when fewer
   * backends outside the subset are available.
   *
   * @param backends the service's backends
   * @param subsetRanks the client's subset, as ranks in {@code backends}
   * @param available whether the backend at a rank can take new requests
   * @param client who this client is: its stand-ins are drawn in its own order
   * @return ranks: the available members, then the stand-ins
   * @throws IllegalArgumentException for a rank out of range
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
