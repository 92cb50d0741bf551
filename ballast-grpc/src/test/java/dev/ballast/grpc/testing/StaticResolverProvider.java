package dev.ballast.grpc.testing;

import dev.ballast.grpc.BallastLoadBalancerProvider;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Status;
import io.grpc.inprocess.InProcessSocketAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Resolves {@code ballast-test:///<name>} to the addresses a test or a loopback measurement
 * registered under the name, so a channel sees a whole fleet of loopback servers as one service.
 * Tests can push new address lists. {@code ballast-test-in-process:///<name>} does the same for
 * servers on the in-process transport, which takes no other kind of address.
 */
public final class StaticResolverProvider extends NameResolverProvider {
  public static final String SCHEME = "ballast-test";
  private static final StaticResolverProvider INSTANCE = new StaticResolverProvider(SCHEME, InetSocketAddress.class);
  private static final StaticResolverProvider IN_PROCESS =
      new StaticResolverProvider(SCHEME + "-in-process", InProcessSocketAddress.class);
  private static final AtomicInteger names = new AtomicInteger();

  private final String scheme;
  private final Class<? extends SocketAddress> addressType;
  private final Map<String, List<EquivalentAddressGroup>> services = new ConcurrentHashMap<>();
  private final Map<String, List<Resolver>> resolvers = new ConcurrentHashMap<>();

  static {
    NameResolverRegistry.getDefaultRegistry().register(INSTANCE);
    NameResolverRegistry.getDefaultRegistry().register(IN_PROCESS);
  }

  private StaticResolverProvider(String scheme, Class<? extends SocketAddress> addressType) {
    this.scheme = scheme;
    this.addressType = addressType;
  }

  /** A fresh target resolving to {@code ports} on 127.0.0.1. */
  public static String target(Collection<Integer> ports) {
    return INSTANCE.register(groups(ports));
  }

  /**
   * A fresh target resolving to the given ports, each labelled with its stable backend key
   * ({@link BallastLoadBalancerProvider#BACKEND_KEY}), in the map's iteration order.
   */
  public static String targetNamed(Map<String, Integer> portsByKey) {
    return INSTANCE.register(namedGroups(portsByKey, StaticResolverProvider::loopback));
  }

  /**
   * A fresh target resolving to the in-process servers registered under the map's values, each
   * labelled with its key as its stable backend key, in the map's iteration order.
   */
  public static String targetInProcess(Map<String, String> serverNamesByKey) {
    return IN_PROCESS.register(namedGroups(serverNamesByKey, InProcessSocketAddress::new));
  }

  /** Tells every channel of {@code target} about new addresses. */
  public static void update(String target, Collection<Integer> ports) {
    publish(target, groups(ports));
  }

  public static void updateNamed(String target, Map<String, Integer> portsByKey) {
    publish(target, namedGroups(portsByKey, StaticResolverProvider::loopback));
  }

  private String register(List<EquivalentAddressGroup> groups) {
    String name = "service-" + names.incrementAndGet();
    services.put(name, groups);
    return scheme + ":///" + name;
  }

  private static SocketAddress loopback(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  private static <T> List<EquivalentAddressGroup> namedGroups(
      Map<String, T> byKey, Function<T, SocketAddress> address) {
    List<EquivalentAddressGroup> out = new ArrayList<>();
    byKey.forEach(
        (key, where) ->
            out.add(
                new EquivalentAddressGroup(
                    address.apply(where),
                    io.grpc.Attributes.newBuilder().set(BallastLoadBalancerProvider.BACKEND_KEY, key).build())));
    return List.copyOf(out);
  }

  private static void publish(String target, List<EquivalentAddressGroup> groups) {
    String name = URI.create(target).getPath().substring(1);
    INSTANCE.services.put(name, groups);
    for (Resolver resolver : INSTANCE.resolvers.getOrDefault(name, List.of())) {
      resolver.publish();
    }
  }

  private static List<EquivalentAddressGroup> groups(Collection<Integer> ports) {
    List<EquivalentAddressGroup> out = new ArrayList<>();
    for (int port : ports) {
      out.add(new EquivalentAddressGroup(loopback(port)));
    }
    return List.copyOf(out);
  }

  @Override
  protected boolean isAvailable() {
    return true;
  }

  @Override
  protected int priority() {
    return 5;
  }

  @Override
  public String getDefaultScheme() {
    return scheme;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(addressType);
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!scheme.equals(targetUri.getScheme())) {
      return null;
    }
    String name = targetUri.getPath().substring(1);
    Resolver resolver = new Resolver(name, args);
    resolvers.computeIfAbsent(name, n -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(resolver);
    return resolver;
  }

  private final class Resolver extends NameResolver {
    private final String name;
    private final NameResolver.Args args;
    private volatile Listener2 listener;

    Resolver(String name, NameResolver.Args args) {
      this.name = name;
      this.args = args;
    }

    @Override
    public String getServiceAuthority() {
      return "localhost";
    }

    @Override
    public void start(Listener2 listener) {
      this.listener = listener;
      publish();
    }

    void publish() {
      Listener2 target = listener;
      if (target == null) {
        return;
      }
      List<EquivalentAddressGroup> addresses = services.get(name);
      // onResult and onError, which every gRPC-Java version Ballast supports has (docs/grpc.md).
      args.getSynchronizationContext()
          .execute(() -> {
            if (addresses == null) {
              target.onError(Status.UNAVAILABLE.withDescription("unknown " + name));
            } else {
              target.onResult(ResolutionResult.newBuilder().setAddresses(addresses).build());
            }
          });
    }

    @Override
    public void shutdown() {
      listener = null;
      List<Resolver> list = resolvers.get(name);
      if (list != null) {
        list.remove(this);
      }
    }
  }
}
