package dev.ballast.sim;

import static dev.ballast.testing.PropertyCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The simulated backends' cache: exactly least-recently-used, against the JDK's access-ordered map. */
final class LruCacheTest {

  /** A cache's capacity and the keys looked up, from a small range so that they repeat and evict. */
  record Lookups(int capacity, List<Integer> keys) {}

  @Test
  void hitsAndEvictsExactlyAsAnAccessOrderedMapBoundedToItsCapacity() {
    forAll(in -> new Lookups(in.intBetween(1, 20), in.listOf(0, 400, k -> k.intBetween(-5, 60))), c -> {
      LruCache cache = new LruCache(c.capacity());
      Map<Integer, Boolean> reference = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Boolean> eldest) {
          return size() > c.capacity();
        }
      };
      int i = 0;
      for (int key : c.keys()) {
        boolean expected = reference.containsKey(key);
        reference.put(key, true);
        assertThat(cache.access(key)).as("lookup %d of key %d", i++, key).isEqualTo(expected);
        assertThat(cache.size()).isEqualTo(reference.size());
      }
    });
  }

  @Test
  void aClearedCacheMissesEverything() {
    LruCache cache = new LruCache(3);
    cache.access(1);
    cache.access(2);
    cache.clear();
    assertThat(cache.size()).isZero();
    assertThat(cache.access(1)).isFalse();
    assertThat(cache.access(1)).isTrue();
  }
}
