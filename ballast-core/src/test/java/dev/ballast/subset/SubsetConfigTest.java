package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.settings.Setting;
import dev.ballast.settings.SettingSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class SubsetConfigTest {

  private static SubsetConfig read(Map<String, ?> values) {
    return SubsetConfig.SETTINGS.read(SettingSource.of(values, "subsetting.", Setting::kebab));
  }

  @Test
  void autoIsOrthogonalLotsWithAnIndexAndRendezvousWithout() {
    SubsetConfig config = SubsetConfig.defaults();
    assertThat(config.subsetter(config.identity(7)).name()).isEqualTo("rendezvous");
    SubsetConfig indexed = read(Map.of("client-index", 2, "client-count", 5));
    assertThat(indexed.identity(7)).isEqualTo(ClientIdentity.of(2, 5));
    assertThat(indexed.subsetter(indexed.identity(7)).name()).isEqualTo("orthogonal_lots");
  }

  @Test
  void theRemoteSubsetSizeFollowsTheSubsetSizeUnlessSet() {
    assertThat(read(Map.of("subset-size", 6)).remoteSubsetSize()).isEqualTo(6);
    assertThat(read(Map.of("subset-size", 6, "remote-subset-size", 0)).remoteSubsetSize()).isZero();
  }

  @Test
  void badValuesAndRelationsAreNamedAsWritten() {
    assertThatThrownBy(() -> read(Map.of("subset-size", 0)))
        .hasMessage("subsetting.subset-size: 0 (expected: a whole number in 1..10000)");
    assertThatThrownBy(() -> read(Map.of("subset-algorithm", "consistent")))
        .hasMessage("subsetting.subset-algorithm: 'consistent' (expected: auto, random, deterministic, rendezvous or orthogonal_lots)");
    assertThatThrownBy(() -> read(Map.of("client-index", 5, "client-count", 5)))
        .hasMessage("subsetting.client-index: 5 (expected: 0..4 for subsetting.client-count 5)");
    assertThatThrownBy(() -> read(Map.of("lot-size", 3, "subset-algorithm", "rendezvous")))
        .hasMessage("subsetting.lot-size: 3 (expected: only with subsetting.subset-algorithm orthogonal_lots, not rendezvous)");
  }

  @Test
  void anAlgorithmThatNeedsAnIndexIsRefusedForAClientWithoutOne() {
    SubsetConfig config = read(Map.of("subset-algorithm", "orthogonal-lots"));
    assertThatThrownBy(() -> config.subsetter(config.identity(1)))
        .hasMessageStartingWith("subsetAlgorithm: orthogonal_lots (expected: rendezvous, random or auto");
    assertThat(read(Map.of("subset-algorithm", "random")).subsetter(ClientIdentity.anonymous(1)).name()).isEqualTo("random");
  }

  @Test
  void aPinnedLotSizeReachesTheSubsetter() {
    SubsetConfig config = read(Map.of("client-index", 0, "lot-size", 4));
    assertThat(config.subsetter(config.identity(0))).isInstanceOf(OrthogonalLotsSubsetter.class);
  }
}
