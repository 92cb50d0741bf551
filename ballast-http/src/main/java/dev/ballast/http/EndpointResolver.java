package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where a client learns its service's backends: it is told the whole list whenever it changes. A
 * DNS poller, a registry's watch, or a fixed list ({@link #of(List)}) implement it; Spring's
 * instance suppliers feed {@link HttpBalancer#updateEndpoints} directly instead.
 */
@Experimental
@FunctionalInterface
public interface EndpointResolver {

  /**
   * Starts telling {@code listener} the service's backends: at once if known, and after every
   * change, each time the whole list. Calls may come from any thread, one at a time.
   *
   * @param listener receives each list
   * @return stops the updates when closed
   */
  AutoCloseable subscribe(Consumer<List<HttpEndpoint>> listener);

  /**
   * A fixed list of backends, told once.
   *
   * @param endpoints the backends
   * @return the resolver
   */
  static EndpointResolver of(List<HttpEndpoint> endpoints) {
    List<HttpEndpoint> fixed = List.copyOf(endpoints);
    return listener -> {
      listener.accept(fixed);
      return () -> {};
    };
  }
}
