package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The Ballast balancers of the application's services, as Spring Cloud LoadBalancer creates them
 * (in each service's own context, at the service's first request) and closes them: what binds
 * their meters follows them here. One bean of the application context.
 */
@Experimental
public final class BallastLoadBalancers implements AutoCloseable {
  private final List<BallastLoadBalancer> balancers = new CopyOnWriteArrayList<>();
  private final List<Consumer<BallastLoadBalancer>> onAdded = new CopyOnWriteArrayList<>();
  private final List<Consumer<BallastLoadBalancer>> onRemoved = new CopyOnWriteArrayList<>();
  private HttpClient healthCheckClient;

  /** An empty registry. */
  public BallastLoadBalancers() {}

  /**
   * Adds a balancer that has just been created, and tells the listeners.
   *
   * @param balancer the new balancer
   */
  public void added(BallastLoadBalancer balancer) {
    balancers.add(Objects.requireNonNull(balancer, "balancer"));
    onAdded.forEach(listener -> listener.accept(balancer));
  }

  /**
   * Removes a balancer that has been closed, and tells the listeners.
   *
   * @param balancer the closed balancer
   */
  public void removed(BallastLoadBalancer balancer) {
    if (balancers.remove(balancer)) {
      onRemoved.forEach(listener -> listener.accept(balancer));
    }
  }

  /**
   * Follows the balancers: {@code added} is told of each balancer there is now and of each new one,
   * {@code removed} of each that closes.
   *
   * @param added told of each balancer
   * @param removed told of each balancer that closes
   */
  public synchronized void follow(Consumer<BallastLoadBalancer> added, Consumer<BallastLoadBalancer> removed) {
    onAdded.add(Objects.requireNonNull(added, "added"));
    onRemoved.add(Objects.requireNonNull(removed, "removed"));
    balancers.forEach(added);
  }

  /**
   * The balancers open now.
   *
   * @return a snapshot of them
   */
  public List<BallastLoadBalancer> balancers() {
    return List.copyOf(balancers);
  }

  /**
   * The balancer of {@code serviceId}, if it was created.
   *
   * @param serviceId the service
   * @return its balancer, or null
   */
  public BallastLoadBalancer balancer(String serviceId) {
    for (BallastLoadBalancer balancer : balancers) {
      if (balancer.serviceId().equals(serviceId)) {
        return balancer;
      }
    }
    return null;
  }

  /**
   * The JDK client that checks health paths and sends {@code prequal_probing}'s probes, shared by
   * every balancer that does either.
   *
   * @return the client, made at the first call
   */
  public synchronized HttpClient healthCheckClient() {
    if (healthCheckClient == null) {
      healthCheckClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2)).build();
    }
    return healthCheckClient;
  }

  /** Forgets the listeners; the balancers close with their own contexts. */
  @Override
  public void close() {
    onAdded.clear();
    onRemoved.clear();
  }
}
