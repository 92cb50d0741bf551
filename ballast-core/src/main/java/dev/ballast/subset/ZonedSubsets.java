package dev.ballast.subset;

import dev.ballast.annotation.Experimental;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A client's subset when backends have zones (docs/zones.md): the subsetter runs over each zone's
 * backends on their own, taking {@code subsetSize} of the client's own zone and {@code
 * remoteSubsetSize} of each other zone, so that the client has backends to spill into and to fail
 * over to. Backends without a zone form one zone, named {@code ""}. Every transport computes a
 * zoned subset with this one function, so that a client's subset is the same whichever transport
 * it calls over. {@link Experimental}, as zone routing is.
 */
@Experimental
public final class ZonedSubsets {
  private ZonedSubsets() {}

  /**
   * The ranks in {@code backends} of the client's zoned subset, zone by zone in the order the
   * zones first appear in {@code backends}.
   *
   * @param subsetter the algorithm run over each zone's backends
   * @param backends every backend of the service
   * @param zoneOfKey each backend's zone; a key it leaves out is in the zone {@code ""}
   * @param client the client's identity
   * @param ownZone the client's own zone
   * @param subsetSize how many backends of the client's own zone the subset holds (fewer if the
   *     zone has fewer)
   * @param remoteSubsetSize how many backends of each other zone it holds (fewer if the zone has
   *     fewer; 0 for none)
   * @return the subset's ranks
   * @throws IllegalArgumentException if the subsetter needs a client index the identity lacks
   */
  public static int[] subsetRanks(
      Subsetter subsetter,
      BackendSet backends,
      Map<String, String> zoneOfKey,
      ClientIdentity client,
      String ownZone,
      int subsetSize,
      int remoteSubsetSize) {
    Objects.requireNonNull(subsetter, "subsetter");
    Objects.requireNonNull(zoneOfKey, "zoneOfKey");
    Map<String, List<String>> byZone = new LinkedHashMap<>();
    for (String key : backends.keys()) {
      byZone.computeIfAbsent(zoneOfKey.getOrDefault(key, ""), z -> new ArrayList<>()).add(key);
    }
    List<Integer> ranks = new ArrayList<>();
    for (Map.Entry<String, List<String>> zone : byZone.entrySet()) {
      BackendSet members = BackendSet.of(zone.getValue());
      int wanted = zone.getKey().equals(ownZone) ? subsetSize : remoteSubsetSize;
      int size = Math.min(wanted, members.size());
      if (size == 0) {
        continue;
      }
      for (int rank : subsetter.subsetRanks(members, client, size)) {
        ranks.add(backends.rankOf(members.key(rank)));
      }
    }
    return ranks.stream().mapToInt(Integer::intValue).toArray();
  }
}
