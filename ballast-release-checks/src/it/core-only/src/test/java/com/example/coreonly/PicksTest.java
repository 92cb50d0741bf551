package com.example.coreonly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ballast.pick.Balancer;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PicksTest {
  private static final List<String> BACKENDS = IntStream.range(0, 20).mapToObj(i -> "task-" + i).toList();

  @Test
  void everyRequestIsServedWithinTheSubset() {
    Map<String, Integer> served = Picks.run(BACKENDS, 3, 10, 5, 1_000);

    assertEquals(5, served.size(), "backends that served: " + served);
    assertEquals(1_000, served.values().stream().mapToInt(Integer::intValue).sum());
    assertTrue(BACKENDS.containsAll(served.keySet()), "served: " + served);
  }

  @Test
  void ballastCoreIsTheNamedModuleItsManifestNames() {
    Module core = Balancer.class.getModule();

    assertTrue(core.isNamed(), "ballast-core is on the module path");
    assertEquals("dev.ballast.core", core.getName());
  }
}
