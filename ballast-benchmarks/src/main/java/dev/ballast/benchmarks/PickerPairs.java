package dev.ballast.benchmarks;

import dev.ballast.pick.Pick;
import dev.ballast.pick.Picker;
import dev.ballast.time.NanoClock;
import io.grpc.LoadBalancer;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ballast's pickers against gRPC's, paired in time: the same work as {@link PickerBenchmark} (pick,
 * then complete), but both pickers live in one JVM and take turns in short phases, so that each
 * ratio compares two measurements made under the same conditions.
 *
 * <p>Why: on a shared virtual machine, how the hypervisor places the benchmark threads changes from
 * one JVM to the next, and two-thread results of the same picker differ by up to 3x between JMH
 * forks. A Ballast fork and a gRPC fork run minutes apart, so their ratio mixes those modes. Here a
 * round runs one phase of each side back to back (the side that goes first alternates), and the
 * result is the median over rounds of the per-round ratio.
 *
 * <p>Each pair runs in a JVM of its own (started by this class), so that the compiler's profile of
 * one policy never shapes the code of another. Phases and rounds are bounded: every run stops by
 * itself.
 *
 * <p>Run: {@code java -cp ballast-benchmarks/target/benchmarks.jar dev.ballast.benchmarks.PickerPairs
 * THREADS [ROUNDS [PHASE_MS [IN_FLIGHT]]]} (defaults 15 rounds of 200 ms per side, after 5 warm-up
 * rounds, and no requests left in flight) runs every pair at 10, 100 and 1000 backends; {@code
 * --pair BALLAST_POLICY GRPC_POLICY BACKENDS THREADS ROUNDS PHASE_MS [IN_FLIGHT]} runs one pair in
 * this JVM. {@code IN_FLIGHT} requests per backend are started on both sides before measuring and
 * never ended, as {@link PickerBenchmark}'s {@code -p inFlight}, so that load-aware pickers compare
 * busy backends. See docs/benchmarks.md.
 */
public final class PickerPairs {
  static final String[][] PAIRS = {
    {"round_robin", "round_robin"},
    {"weighted_round_robin", "weighted_round_robin"},
    {"interleaved_weighted_round_robin", "weighted_round_robin"},
    {"least_loaded_round_robin", "least_request_experimental"},
    {"power_of_two_choices", "least_request_experimental"},
    {"fair_share", "least_request_experimental"},
  };
  static final int[] SIZES = {10, 100, 1000};
  static final int WARM_UP_ROUNDS = 5;

  private PickerPairs() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 1 && args[0].equals("--pair")) {
      if (args.length != 7 && args.length != 8) {
        usage("--pair takes 6 or 7 values, got " + (args.length - 1));
      }
      Result r = runPair(args[1], args[2], positive("backends", args[3]), positive("threads", args[4]),
          positive("rounds", args[5]), positive("phase milliseconds", args[6]),
          args.length > 7 ? inFlight(args[7]) : 0);
      System.out.println(r.line());
      return;
    }
    if (args.length < 1 || args.length > 4) {
      usage("expected THREADS [ROUNDS [PHASE_MS [IN_FLIGHT]]], got " + args.length + " arguments");
    }
    int threads = positive("threads", args[0]);
    int rounds = args.length > 1 ? positive("rounds", args[1]) : 15;
    int phaseMillis = args.length > 2 ? positive("phase milliseconds", args[2]) : 200;
    int inFlight = args.length > 3 ? inFlight(args[3]) : 0;
    System.out.printf(Locale.ROOT, "%d thread(s), %d rounds of %d ms per side after %d warm-up rounds, %d requests per backend left in flight; median of per-round ratios (min..max)%n",
        threads, rounds, phaseMillis, WARM_UP_ROUNDS, inFlight);
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    String classpath = System.getProperty("java.class.path");
    for (int size : SIZES) {
      for (String[] pair : PAIRS) {
        List<String> command = new ArrayList<>(List.of(java, "-cp", classpath, PickerPairs.class.getName(), "--pair",
            pair[0], pair[1], Integer.toString(size), Integer.toString(threads), Integer.toString(rounds),
            Integer.toString(phaseMillis), Integer.toString(inFlight)));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes()).trim();
        int exit = process.waitFor();
        if (exit != 0) {
          throw new IllegalStateException("pair " + Arrays.toString(pair) + " at " + size + " backends failed (exit " + exit + "): " + output);
        }
        System.out.println(output);
      }
    }
  }

  private static int positive(String what, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    usage(what + ": '" + value + "' (expected: a whole number, 1 or more)");
    return 0;
  }

  /** A requests-in-flight count: a whole number below the active-request limit. */
  private static int inFlight(String value) {
    try {
      int n = Integer.parseInt(value);
      PickerBenchmark.checkInFlight(n);
      return n;
    } catch (NumberFormatException e) {
      usage("in flight: '" + value + "' (expected: a whole number, 0 or more, below the active-request limit)");
    } catch (IllegalArgumentException e) {
      usage(e.getMessage());
    }
    return 0;
  }

  private static void usage(String message) {
    System.err.println("PickerPairs: " + message
        + "; usage: PickerPairs THREADS [ROUNDS [PHASE_MS [IN_FLIGHT]]] | --pair BALLAST_POLICY GRPC_POLICY BACKENDS THREADS ROUNDS PHASE_MS [IN_FLIGHT]");
    System.exit(2);
  }

  /** One phase's work on one side: runs until told to stop, returns the requests it completed. */
  interface Side {
    long run(AtomicBoolean stop);
  }

  static long runBallast(Picker picker, AtomicBoolean stop) {
    long ops = 0;
    long nulls = 0;
    // At least one batch, so that a thread that starts late still counts for something.
    do {
      for (int k = 0; k < 256; k++) {
        Pick pick = picker.pick();
        if (pick.backend() == null) {
          nulls++;
        }
        pick.onSuccess(PickerBenchmark.LATENCY_NANOS);
      }
      ops += 256;
    } while (!stop.get());
    return nulls == 0 ? ops : -1;
  }

  static long runGrpc(LoadBalancer.SubchannelPicker picker, AtomicBoolean stop) {
    long ops = 0;
    long nulls = 0;
    do {
      for (int k = 0; k < 256; k++) {
        LoadBalancer.PickResult result = picker.pickSubchannel(GrpcPickerFixture.ARGS);
        if (result.getSubchannel() == null) {
          nulls++;
        }
        GrpcPickerFixture.completeCall(result, null);
      }
      ops += 256;
    } while (!stop.get());
    return nulls == 0 ? ops : -1;
  }

  static Result runPair(String ballastPolicy, String grpcPolicy, int backends, int threads, int rounds, int phaseMillis,
      int inFlight) throws InterruptedException {
    PickerBenchmark.checkInFlight(inFlight);
    Picker ballast = PickerBenchmark.ballastPicker(ballastPolicy, backends, NanoClock.cached());
    PickerBenchmark.leaveInFlight(ballast, backends, inFlight);
    try (GrpcPickerFixture fixture = PickerBenchmark.grpcFixture(grpcPolicy, backends)) {
      LoadBalancer.SubchannelPicker grpc = fixture.picker();
      PickerBenchmark.leaveInFlight(grpc, backends, inFlight);
      Side ballastSide = stop -> runBallast(ballast, stop);
      Side grpcSide = stop -> runGrpc(grpc, stop);
      double[] ballastNanos = new double[rounds];
      double[] grpcNanos = new double[rounds];
      double[] ratios = new double[rounds];
      for (int round = -WARM_UP_ROUNDS; round < rounds; round++) {
        boolean ballastFirst = (round & 1) == 0;
        double first = phase(ballastFirst ? ballastSide : grpcSide, threads, phaseMillis);
        double second = phase(ballastFirst ? grpcSide : ballastSide, threads, phaseMillis);
        if (round >= 0) {
          ballastNanos[round] = ballastFirst ? first : second;
          grpcNanos[round] = ballastFirst ? second : first;
          ratios[round] = ballastNanos[round] / grpcNanos[round];
        }
      }
      return new Result(ballastPolicy, grpcPolicy, backends, threads, inFlight, Medians.of(ballastNanos), Medians.of(grpcNanos), ratios);
    }
  }

  /** Runs one side on {@code threads} threads for {@code millis}; returns nanoseconds per request per thread. */
  static double phase(Side side, int threads, int millis) throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    long[] ops = new long[threads];
    Throwable[] failures = new Throwable[threads];
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int index = t;
      workers[t] = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        try {
          ops[index] = side.run(stop);
        } catch (RuntimeException | Error e) {
          failures[index] = e;
        }
      }, "pair-worker-" + t);
      workers[t].start();
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    Thread.sleep(millis);
    stop.set(true);
    for (Thread worker : workers) {
      worker.join();
    }
    long elapsed = System.nanoTime() - start;
    for (Throwable failure : failures) {
      if (failure != null) {
        throw new IllegalStateException("a benchmark thread failed", failure);
      }
    }
    long total = 0;
    for (long n : ops) {
      if (n < 0) {
        throw new IllegalStateException("a pick returned no backend");
      }
      total += n;
    }
    if (total == 0) {
      throw new IllegalStateException("no request completed in a " + millis + " ms phase");
    }
    return (double) elapsed * threads / total;
  }

  record Result(
      String ballast, String grpc, int backends, int threads, int inFlight, double ballastNanos, double grpcNanos, double[] ratios) {
    double ratio() {
      return Medians.of(ratios);
    }

    String line() {
      double min = Arrays.stream(ratios).min().orElse(Double.NaN);
      double max = Arrays.stream(ratios).max().orElse(Double.NaN);
      String busy = inFlight > 0 ? ", " + inFlight + " in flight per backend" : "";
      return String.format(Locale.ROOT, "%-34s vs %-28s %5d backends, %d thread(s)%s: %7.1f ns vs %7.1f ns, ratio %.2f (%.2f..%.2f)",
          ballast, grpc, backends, threads, busy, ballastNanos, grpcNanos, ratio(), min, max);
    }
  }
}
