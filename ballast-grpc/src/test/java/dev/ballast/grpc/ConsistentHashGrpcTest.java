package dev.ballast.grpc;

import static dev.ballast.grpc.Clients.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.grpc.testing.StaticResolverProvider;
import dev.ballast.health.HealthConfig;
import dev.ballast.pick.Balancer;
import dev.ballast.pick.ConsistentHashConfig;
import dev.ballast.pick.KeyHash;
import dev.ballast.pick.Pick;
import dev.ballast.pick.Policy;
import dev.ballast.testing.FakeClock;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@code consistent_hash} over real servers on loopback, its key in a request header: a key keeps
 * to its backend while that backend is under the bound, a hot key spills to the next on its walk,
 * and a backend that leaves moves its own keys and no other. Counts only; where each call should go
 * is worked out by a core balancer over the same backend keys, so the test also checks that the
 * transport hashes a header's value as {@link KeyHash} does.
 */
final class ConsistentHashGrpcTest {
  private static final Metadata.Key<String> USER = Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER);

  /** Backends named task-0.., each holding calls whose caller starts with "hold" until released. */
  private static final class Fleet implements AutoCloseable {
    final Map<String, TestBackend> byName = new LinkedHashMap<>();
    final Map<String, Integer> ports = new LinkedHashMap<>();
    final ConcurrentLinkedQueue<StreamObserver<String>> held = new ConcurrentLinkedQueue<>();
    final Map<String, AtomicLong> holding = new LinkedHashMap<>();

    Fleet(int n) throws Exception {
      for (int b = 0; b < n; b++) {
        String name = "task-" + b;
        AtomicLong holds = new AtomicLong();
        holding.put(name, holds);
        TestBackend backend = TestBackend.start(0, ignored -> (caller, response) -> {
          if (caller.startsWith("hold")) {
            holds.incrementAndGet();
            held.add(response);
          } else {
            response.onNext(name);
            response.onCompleted();
          }
        });
        byName.put(name, backend);
        ports.put(name, backend.port);
      }
    }

    void release() {
      for (StreamObserver<String> response; (response = held.poll()) != null; ) {
        response.onNext("released");
        response.onCompleted();
      }
    }

    /** How many held calls each backend has received, by name. */
    Map<String, Long> holding() {
      Map<String, Long> out = new LinkedHashMap<>();
      holding.forEach((name, count) -> out.put(name, count.get()));
      return out;
    }

    @Override
    public void close() {
      release();
      byName.values().forEach(TestBackend::close);
    }
  }

  private static Map<String, Object> config(String bound) {
    return json("policy", Map.of("consistent_hash", json("requestHashHeader", "X-User", "bound", bound)));
  }

  /** One blocking call whose x-user header is {@code user}; the answering backend's name. */
  private static String call(ManagedChannel channel, String user) {
    Metadata headers = new Metadata();
    headers.put(USER, user);
    return ClientCalls.blockingUnaryCall(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)), EchoService.CALL,
        CallOptions.DEFAULT.withDeadlineAfter(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS), "client");
  }

  /** A core balancer over {@code names}, as the channel's, for where a key should go. */
  private static Balancer expected(List<String> names, ConsistentHashConfig.Bound bound) {
    Balancer balancer = Balancer.builder(Policy.consistentHash(ConsistentHashConfig.builder().bound(bound).build()))
        .health(HealthConfig.defaults()).clock(new FakeClock()).reproducibleFrom(new SplittableRandom(1)).build();
    balancer.updateSubset(names);
    names.forEach(name -> balancer.backend(name).onConnected());
    return balancer;
  }

  private static String home(Balancer balancer, String user) {
    Pick pick = balancer.pickByKey(KeyHash.of(user));
    pick.onSuccess(1_000);
    return pick.backend().key();
  }

  /** Waits until every backend answers its own keys: a pick passes over a backend still connecting. */
  private static void connectAll(ManagedChannel channel, Fleet fleet, Balancer core) {
    for (String name : fleet.ports.keySet()) {
      String user = null;
      for (int k = 0; user == null; k++) {
        if (home(core, "warm-" + k).equals(name)) {
          user = "warm-" + k;
        }
      }
      String reaching = user;
      Poll.until(name + " answers its keys", () -> call(channel, reaching).equals(name));
    }
  }

  @Test
  void callsWithOneKeyReachOneBackendOnEveryClientAndARemovedBackendMovesOnlyItsOwnKeys() throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    try (Fleet fleet = new Fleet(6)) {
      String target = StaticResolverProvider.targetNamed(fleet.ports);
      ManagedChannel one = Clients.ballast(target, config("in_flight"));
      ManagedChannel other = Clients.ballast(target, config("in_flight"));
      channels.add(one);
      channels.add(other);
      Balancer core = expected(List.copyOf(fleet.ports.keySet()), ConsistentHashConfig.Bound.IN_FLIGHT);
      connectAll(one, fleet, core);
      connectAll(other, fleet, core);
      Map<String, String> before = new HashMap<>();
      for (int k = 0; k < 120; k++) {
        String user = "user-" + k;
        String home = call(one, user);
        before.put(user, home);
        assertThat(home).as("the backend of %s", user).isEqualTo(home(core, user));
        assertThat(call(one, user)).as("%s again", user).isEqualTo(home);
        assertThat(call(other, user)).as("%s on another channel", user).isEqualTo(home);
      }

      String removed = "task-2";
      Map<String, Integer> fewer = new LinkedHashMap<>(fleet.ports);
      fewer.remove(removed);
      StaticResolverProvider.updateNamed(target, fewer);
      Poll.until("the channel stops using " + removed, () -> {
        for (int k = 0; k < 120; k++) {
          if (call(one, "user-" + k).equals(removed)) {
            return false;
          }
        }
        return true;
      });
      int moved = 0;
      int ownKeys = 0;
      for (int k = 0; k < 120; k++) {
        String user = "user-" + k;
        String now = call(one, user);
        if (before.get(user).equals(removed)) {
          ownKeys++;
          moved += now.equals(removed) ? 0 : 1;
        } else {
          assertThat(now).as("a key of %s after %s left", before.get(user), removed).isEqualTo(before.get(user));
        }
      }
      assertThat(ownKeys).as("keys of %s among 120", removed).isPositive();
      assertThat(moved).as("keys of %s that moved", removed).isEqualTo(ownKeys);
    } finally {
      Clients.closeAll(channels);
    }
  }

  @Test
  void aHotKeySpillsToTheNextBackendOfItsWalkOnceItsBackendIsOverTheBound() throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    try (Fleet fleet = new Fleet(4)) {
      ManagedChannel channel = Clients.ballast(StaticResolverProvider.targetNamed(fleet.ports), config("in_flight"));
      channels.add(channel);
      String hot = "user-7";
      // The same picks on a core balancer, each held: where each of the held calls should land.
      Balancer core = expected(List.copyOf(fleet.ports.keySet()), ConsistentHashConfig.Bound.IN_FLIGHT);
      Map<String, Long> wanted = new LinkedHashMap<>();
      fleet.ports.keySet().forEach(name -> wanted.put(name, 0L));
      for (int i = 0; i < 6; i++) {
        wanted.merge(core.pickByKey(KeyHash.of(hot)).backend().key(), 1L, Long::sum);
      }
      assertThat(wanted.values().stream().filter(count -> count > 0)).as("the walk spreads six held calls").hasSizeGreaterThan(1);

      connectAll(channel, fleet, core);
      Metadata headers = new Metadata();
      headers.put(USER, hot);
      for (int i = 0; i < 6; i++) {
        ClientCall<String, String> held = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers))
            .newCall(EchoService.CALL, CallOptions.DEFAULT.withDeadlineAfter(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS));
        ClientCalls.asyncUnaryCall(held, "hold-" + i, new StreamObserver<>() {
          @Override
          public void onNext(String value) {}

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        });
        int sent = i + 1;
        // Each call is picked with the ones before it in flight, as on the core balancer.
        Poll.until("held call " + sent + " reaches a backend", () -> fleet.holding().values().stream().mapToLong(Long::longValue).sum() == sent);
      }
      assertThat(fleet.holding()).isEqualTo(wanted);

      // Another key whose backend holds none of them still goes to its backend.
      String cold = null;
      for (int k = 0; cold == null; k++) {
        String user = "cold-" + k;
        if (fleet.holding().get(home(core, user)) == 0) {
          cold = user;
        }
      }
      assertThat(call(channel, cold)).isEqualTo(home(core, cold));
    } finally {
      Clients.closeAll(channels);
    }
  }

  @Test
  void aKeyGivenAsACallOptionOrInSeveralHeaderValuesIsHashedAsA76Says() throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    try (Fleet fleet = new Fleet(5)) {
      ManagedChannel channel = Clients.ballast(StaticResolverProvider.targetNamed(fleet.ports), config("none"));
      channels.add(channel);
      Balancer core = expected(List.copyOf(fleet.ports.keySet()), ConsistentHashConfig.Bound.NONE);
      connectAll(channel, fleet, core);
      for (int k = 0; k < 40; k++) {
        Metadata headers = new Metadata();
        headers.put(USER, "a" + k);
        headers.put(USER, "b" + k);
        String joined = ClientCalls.blockingUnaryCall(
            ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)), EchoService.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS), "client");
        assertThat(joined).as("two values of the header").isEqualTo(home(core, "a" + k + ",b" + k));
        String option = ClientCalls.blockingUnaryCall(channel, EchoService.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(Clients.CALL_GUARD_SECONDS, TimeUnit.SECONDS)
                .withOption(BallastCalls.REQUEST_KEY, "user-" + k), "client");
        assertThat(option).as("the call option").isEqualTo(home(core, "user-" + k));
      }
    } finally {
      Clients.closeAll(channels);
    }
  }

  @Test
  void aSubsetSettingOrABinaryHeaderBesideConsistentHashingIsRefusedWithTheReason() {
    BallastLoadBalancerProvider provider = new BallastLoadBalancerProvider(1);
    ConfigOrError subset = provider.parseLoadBalancingPolicyConfig(
        json("subsetSize", 20, "policy", Map.of("consistent_hash", json())));
    assertThat(subset.getError().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(subset.getError().getDescription()).isEqualTo("ballast config: subsetSize: 20 (expected: no subsetSize with"
        + " policy consistent_hash, which uses every backend so that all clients send a key to the same one; leave it out,"
        + " docs/policies.md \"consistent_hash and subsetting\")");

    ConfigOrError binary = provider.parseLoadBalancingPolicyConfig(
        json("policy", Map.of("consistent_hash", json("requestHashHeader", "x-user-bin"))));
    assertThat(binary.getError().getDescription()).isEqualTo("ballast config: policy.consistent_hash.requestHashHeader:"
        + " 'x-user-bin' (expected: a header name of letters, digits, '-', '_' and '.', not ending in -bin, or \"\" for none)");

    ConfigOrError fine = provider.parseLoadBalancingPolicyConfig(json("policy", Map.of("consistent_hash", json())));
    assertThat(fine.getError()).isNull();
    assertThat(((BallastConfig) fine.getConfig()).subsetSize()).isEqualTo(Integer.MAX_VALUE);
  }
}
