package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lowest p99 any balancer could reach in {@code probing-heterogeneous}, the figure that
 * docs/simulation.md sets against the probing bars. A balancer does not know a query's cost before
 * it runs, so all it chooses is the share of requests each backend gets; a request on a backend of
 * effective speed s (machine speed times one minus its antagonist) takes cost / s. The floor
 * assumes no queueing at all and lets backends run at 100% CPU: the fastest backends are filled
 * first, which minimizes the share of requests slower than t for every t at once (a fractional
 * knapsack whose order does not depend on t), so it minimizes every percentile. A second floor
 * keeps every backend at the same CPU utilization (requests in proportion to capacity), the
 * allocation that a CPU max/mean of 1.0 requires.
 */
final class LatencyFloorTest {
  private static final int ANTAGONIST_STEPS = 1000;

  /** One kind of backend: its effective speed, and its share of the capacity or of the requests. */
  private record Cell(double speed, double share) {}

  private final Scenario scenario = ScenarioReader.readBuiltIn("probing-heterogeneous");
  private final QueryCost cost =
      new QueryCost(scenario.cost().meanNanos(), scenario.cost().maxNanos(), scenario.cost().ratio());

  @Test
  void noBalancerCanBringP99UnderTheseFloorsInTheProbingScenario() {
    double rttMs = scenario.rttNanos() / 1e6;
    assertThat(p99Ms(fastestFirst(0.80)) + rttMs).isCloseTo(63.0, within(0.5));
    assertThat(p99Ms(fastestFirst(0.90)) + rttMs).isCloseTo(74.4, within(0.5));
    assertThat(p99Ms(fastestFirst(0.95)) + rttMs).isCloseTo(80.0, within(0.5));
    // Equal CPU everywhere: the same allocation at every load.
    assertThat(p99Ms(cells()) + rttMs).isCloseTo(85.5, within(0.5));
  }

  @Test
  void atLowLoadTheFloorIsTheCostsOwnP99OnTheFastestMachines() {
    // 1% of capacity fits on fast machines whose antagonists take under 0.5%: the floor is the
    // query cost's own p99, 46.4 ms for the chapter's costs.
    double costP99Ms = cost.quantileNanos(0.99) / 1e6;
    assertThat(costP99Ms).isCloseTo(46.4, within(0.05));
    assertThat(p99Ms(fastestFirst(0.01))).isCloseTo(costP99Ms, within(0.3));
  }

  /**
   * The floor of a balancer that also keeps the CPU spread no wider than {@code prequal_probing}'s
   * today (docs/policies.md: CPU max/mean 1.19-1.21 at 80% load, 1.12 at 90%, 1.06-1.07 at 95%):
   * the fastest backends first, each up to the highest CPU that keeps max/mean within the bound.
   * At 80% it lies above 1.15x the unconstrained floor, so no balancer that keeps that spread and
   * does not know query costs can reach 1.15x there, queueing or not; at 90% and 95% it leaves
   * 8% and 12% for queueing.
   */
  @Test
  void withTodaysCpuSpreadTheFloorAt80PercentIsAbove115TimesTheFloor() {
    double rttMs = scenario.rttNanos() / 1e6;
    double at80 = p99Ms(fastestFirstWithin(0.80, 1.21)) + rttMs;
    double at90 = p99Ms(fastestFirstWithin(0.90, 1.12)) + rttMs;
    double at95 = p99Ms(fastestFirstWithin(0.95, 1.07)) + rttMs;
    assertThat(at80).isCloseTo(75.2, within(0.5)).isGreaterThan(1.15 * 63.0);
    assertThat(at90).isCloseTo(79.3, within(0.5)).isLessThan(1.15 * 74.4);
    assertThat(at95).isCloseTo(81.8, within(0.5)).isLessThan(1.15 * 80.0);
    // A tighter spread costs p99 at every load; the equal-CPU floor is the limit (85.5 ms).
    assertThat(p99Ms(fastestFirstWithin(0.80, 1.10)) + rttMs).isGreaterThan(at80);
    assertThat(p99Ms(fastestFirstWithin(0.80, 1.0001)) + rttMs).isCloseTo(85.5, within(0.6));
  }

  /**
   * The fastest-first allocation at {@code load} under the highest CPU cap (in steps of 0.1%) whose
   * backends' CPU max/mean stays at most {@code ratio}.
   */
  private List<Cell> fastestFirstWithin(double load, double ratio) {
    for (int step = 1000; step >= 1; step--) {
      double cap = step / 1000.0;
      List<Cell> sorted = new ArrayList<>(cells());
      sorted.sort(Comparator.comparingDouble(Cell::speed).reversed());
      // A cell's share of backends is its share of capacity over its speed.
      double backends = 0;
      for (Cell cell : sorted) {
        backends += cell.share / cell.speed;
      }
      List<Cell> placed = new ArrayList<>();
      double left = load;
      double meanCpu = 0;
      double maxCpu = 0;
      for (Cell cell : sorted) {
        double take = Math.min(left, cell.share * cap);
        if (take > 0) {
          placed.add(new Cell(cell.speed, take / load));
          double cpu = take / cell.share;
          meanCpu += cell.share / cell.speed / backends * cpu;
          maxCpu = Math.max(maxCpu, cpu);
        }
        left -= take;
      }
      if (left > 1e-9) {
        break;
      }
      if (maxCpu / meanCpu <= ratio) {
        return placed;
      }
    }
    throw new AssertionError("no allocation of load " + load + " keeps CPU max/mean within " + ratio);
  }

  /** Every (machine, antagonist) kind with its share of capacity, requests in proportion to it. */
  private List<Cell> cells() {
    Scenario.FleetSpec fleet = scenario.fleet();
    double shares = fleet.machines().stream().mapToDouble(Scenario.Machine::share).sum();
    List<Cell> cells = new ArrayList<>();
    double total = 0;
    for (Scenario.Machine machine : fleet.machines()) {
      for (int i = 0; i < ANTAGONIST_STEPS; i++) {
        double antagonist = (i + 0.5) / ANTAGONIST_STEPS * fleet.antagonistMax();
        double speed = machine.speed() * (1 - antagonist);
        double capacity = machine.share() / shares / ANTAGONIST_STEPS * speed;
        cells.add(new Cell(speed, capacity));
        total += capacity;
      }
    }
    List<Cell> normalized = new ArrayList<>();
    for (Cell cell : cells) {
      normalized.add(new Cell(cell.speed, cell.share / total));
    }
    return normalized;
  }

  /** Requests placed on the fastest cells first, each up to 100% CPU, at {@code load} of capacity. */
  private List<Cell> fastestFirst(double load) {
    List<Cell> sorted = new ArrayList<>(cells());
    sorted.sort(Comparator.comparingDouble(Cell::speed).reversed());
    List<Cell> placed = new ArrayList<>();
    double left = load;
    for (Cell cell : sorted) {
      double take = Math.min(left, cell.share);
      if (take > 0) {
        placed.add(new Cell(cell.speed, take / load));
      }
      left -= take;
    }
    assertThat(left).isLessThan(1e-9);
    return placed;
  }

  /** The p99 of cost / speed when each cell takes its {@code share} of the requests. */
  private double p99Ms(List<Cell> requestShares) {
    double lo = 0;
    double hi = cost.high() / 1e6 * 100;
    for (int i = 0; i < 100; i++) {
      double t = (lo + hi) / 2;
      if (slowerThan(requestShares, t * 1e6) > 0.01) {
        lo = t;
      } else {
        hi = t;
      }
    }
    return hi;
  }

  private double slowerThan(List<Cell> requestShares, double nanos) {
    double share = 0;
    for (Cell cell : requestShares) {
      share += cell.share * cost.fractionAbove(nanos * cell.speed);
    }
    return share;
  }
}
