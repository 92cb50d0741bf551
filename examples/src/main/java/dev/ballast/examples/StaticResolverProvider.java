package dev.ballast.examples;

import dev.ballast.grpc.BallastLoadBalancerProvider;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.StatusOr;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Resolves {@code example:///50051,50052,50053} to those ports on 127.0.0.1, naming them
 * task-0..task-2 in that order. In
 * production the addresses come from DNS, xDS or a Kubernetes resolver; Ballast only asks that a
 * resolver which knows a stable name per task (an ordinal, a pod name) sets {@link
 * BallastLoadBalancerProvider#BACKEND_KEY}, so that a restart at a new address keeps the task's
 * place in every client's subset.
 */
public final class StaticResolverProvider extends NameResolverProvider {
  static String target(List<Integer> ports) {
    return "example:///" + String.join(",", ports.stream().map(String::valueOf).toList());
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
    return "example";
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  @Override
  public NameResolver newNameResolver(URI target, NameResolver.Args args) {
    if (!"example".equals(target.getScheme())) {
      return null;
    }
    String[] ports = target.getPath().substring(1).split(",");
    return new NameResolver() {
      @Override
      public String getServiceAuthority() {
        return "localhost";
      }

      @Override
      public void start(Listener2 listener) {
        List<EquivalentAddressGroup> groups = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
          groups.add(
              new EquivalentAddressGroup(
                  new InetSocketAddress("127.0.0.1", Integer.parseInt(ports[i])),
                  Attributes.newBuilder().set(BallastLoadBalancerProvider.BACKEND_KEY, "task-" + i).build()));
        }
        listener.onResult2(
            ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups)).build());
      }

      @Override
      public void shutdown() {}
    };
  }
}
