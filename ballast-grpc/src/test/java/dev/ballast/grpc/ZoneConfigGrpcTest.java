package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.pick.ZoneConfig;
import dev.ballast.subset.BackendSet;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the ballast policy finds zones: its own in the config or the environment, its backends' on their addresses or in the config. */
final class ZoneConfigGrpcTest {
  private final List<String> warnings = new ArrayList<>();

  private BallastConfig parse(Map<String, ?> json, Map<String, String> properties, Map<String, String> environment) {
    return new BallastConfigParser(properties::get, environment::get, 42, (level, message) -> warnings.add(level + " " + message)).parse(json);
  }

  @Test
  void theClientsZoneComesFromTheConfigThenTheSystemPropertyThenTheEnvironment() {
    Map<String, String> property = Map.of(BallastConfigParser.ZONE_PROPERTY, "b");
    Map<String, String> variable = Map.of(BallastConfigParser.ZONE_ENV, "c");
    assertThat(parse(json("zone", "a"), property, variable).zone()).isEqualTo("a");
    assertThat(parse(json(), property, variable).zone()).isEqualTo("b");
    assertThat(parse(json(), Map.of(), variable).zone()).isEqualTo("c");
    assertThat(parse(json(), Map.of(), Map.of()).zone()).isNull();
  }

  @Test
  void zoneSettingsAreReadThroughTheirDeclarationsAndBadOnesNamed() {
    BallastConfig config = parse(json("zone", "a", "zones", json("task-0", "a"), "zoneRouting",
        json("maxSpillShare", 0.0), "remoteSubsetSize", 4), Map.of(), Map.of());
    assertThat(config.zones()).isEqualTo(Map.of("task-0", "a"));
    assertThat(config.zoneRouting()).isEqualTo(ZoneConfig.builder().maxSpillShare(0).build());
    assertThat(config.remoteSubsetSize()).isEqualTo(4);
    assertThat(parse(json("subsetSize", 7), Map.of(), Map.of()).remoteSubsetSize()).isEqualTo(7);

    assertThatThrownBy(() -> parse(json("zone", ""), Map.of(), Map.of()))
        .hasMessage("zone: \"\" (expected: a zone name, or no zone field)");
    assertThatThrownBy(() -> parse(json("zones", json("task-0", 3.0)), Map.of(), Map.of()))
        .hasMessage("zones.task-0: 3 (expected: a zone name)");
    assertThatThrownBy(() -> parse(json("zoneRouting", json("deadband", 0.9)), Map.of(), Map.of()))
        .hasMessage("zoneRouting.deadband: 0.9 (expected: a number in 0..0.5)");
  }

  @Test
  void aBackendsZoneIsItsAttributeThenGrpcsLocalityThenTheConfigMap() {
    Map<String, EquivalentAddressGroup> byKey = new LinkedHashMap<>();
    byKey.put("attribute", group(Attributes.newBuilder().set(BallastLoadBalancerProvider.ZONE, "a").build()));
    byKey.put("mapped", group(Attributes.EMPTY));
    byKey.put("none", group(Attributes.EMPTY));
    // gRPC-Java has the locality attribute since 1.76 (docs/grpc.md, "gRPC-Java versions"); on an
    // older version Ballast reads the other two sources alone.
    boolean grpcHasLocality = Arrays.stream(EquivalentAddressGroup.class.getFields())
        .anyMatch(field -> field.getName().equals("ATTR_LOCALITY_NAME"));
    Attributes.Key<String> locality = BallastLoadBalancer.Locality.KEY;
    assertThat(locality != null).as("Ballast reads gRPC's locality attribute where gRPC has it").isEqualTo(grpcHasLocality);
    Map<String, String> expected = new LinkedHashMap<>(Map.of("attribute", "a", "mapped", "c"));
    if (locality != null) {
      byKey.put("xds", group(Attributes.newBuilder()
          .set(locality, "{region=\"r\", zone=\"b\", sub_zone=\"s\"}").build()));
      byKey.put("named", group(Attributes.newBuilder().set(locality, "rack-7").build()));
      expected.put("xds", "b");
      expected.put("named", "rack-7");
    }
    BallastConfig config = parse(json("zone", "a", "zones", json("mapped", "c", "attribute", "ignored")), Map.of(), Map.of());

    assertThat(BallastLoadBalancer.zonesOf(byKey, config)).isEqualTo(expected);
    BallastConfig off = parse(json("zone", "a", "zoneRouting", json("enabled", false)), Map.of(), Map.of());
    assertThat(BallastLoadBalancer.zonesOf(byKey, off)).isEmpty();
    BallastConfig noZone = parse(json("zones", json("mapped", "c")), Map.of(), Map.of());
    assertThat(BallastLoadBalancer.zonesOf(byKey, noZone)).isEmpty();
  }

  @Test
  void theSubsetTakesSubsetSizeOfTheClientsZoneAndRemoteSubsetSizeOfEachOther() {
    List<String> keys = new ArrayList<>();
    Map<String, String> zones = new LinkedHashMap<>();
    for (int i = 0; i < 30; i++) {
      keys.add("task-" + i);
      zones.put("task-" + i, "z" + (i % 3));
    }
    BackendSet set = BackendSet.of(keys);
    BallastConfig config = parse(json("subsetAlgorithm", "rendezvous", "subsetSize", 4, "remoteSubsetSize", 2,
        "zone", "z1", "clientIndex", 5), Map.of(), Map.of());
    int[] ranks = BallastLoadBalancer.zonedSubsetRanks(set, zones, config);
    Map<String, Integer> perZone = new LinkedHashMap<>();
    for (int rank : ranks) {
      perZone.merge(zones.get(set.key(rank)), 1, Integer::sum);
    }
    assertThat(perZone).as(Arrays.toString(ranks)).isEqualTo(Map.of("z0", 2, "z1", 4, "z2", 2));
    assertThat(Arrays.stream(ranks).distinct().count()).isEqualTo(ranks.length);
  }

  private static EquivalentAddressGroup group(Attributes attributes) {
    return new EquivalentAddressGroup(List.of(new InetSocketAddress("127.0.0.1", 1)), attributes);
  }
}
