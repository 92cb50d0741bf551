package dev.ballast.benchmarks;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.StatusOr;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Resolves {@code ballast-bench:///<name>} to loopback ports registered under the name. */
final class StaticNameResolverProvider extends NameResolverProvider {
  static final String SCHEME = "ballast-bench";
  private static final StaticNameResolverProvider INSTANCE = new StaticNameResolverProvider();
  private static final AtomicInteger NAMES = new AtomicInteger();
  private final Map<String, List<EquivalentAddressGroup>> services = new ConcurrentHashMap<>();

  static {
    NameResolverRegistry.getDefaultRegistry().register(INSTANCE);
  }

  /** A target that resolves to {@code ports} on 127.0.0.1. */
  static String register(Collection<Integer> ports) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (int port : ports) {
      groups.add(new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", port)));
    }
    String name = "service-" + NAMES.incrementAndGet();
    INSTANCE.services.put(name, List.copyOf(groups));
    return SCHEME + ":///" + name;
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!SCHEME.equals(targetUri.getScheme())) {
      return null;
    }
    List<EquivalentAddressGroup> groups = services.get(targetUri.getPath().substring(1));
    if (groups == null) {
      return null;
    }
    return new NameResolver() {
      @Override
      public String getServiceAuthority() {
        return "bench.invalid";
      }

      @Override
      public void start(Listener2 listener) {
        listener.onResult(ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups)).build());
      }

      @Override
      public void shutdown() {}
    };
  }

  @Override
  public String getDefaultScheme() {
    return SCHEME;
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
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }
}
