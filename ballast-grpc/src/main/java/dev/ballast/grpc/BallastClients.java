package dev.ballast.grpc;

import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.TokenBucket;
import dev.ballast.pick.Balancer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * The {@code ballast} policy's balancers as they open and close, one per channel and target, for
 * metrics and diagnostics ({@code ballast-micrometer} binds each to a meter registry). gRPC
 * creates load balancers itself through its registry, so this is the one place where the
 * application can see them: register an {@link Observer} and it is told of every balancer open now
 * and of every one that opens or closes later.
 *
 * <p>A channel's balancer is replaced when its service config changes the policy or the health
 * settings (the per-backend statistics start over): the observer sees the old one close and the
 * new one open. The open balancers are held weakly: a channel dropped without shutdown does not
 * stay reachable from here.
 */
public final class BallastClients {
  private static final AtomicLong CHANNELS = new AtomicLong();
  private static final List<Observer> observers = new CopyOnWriteArrayList<>();
  private static final Set<Client> open = Collections.newSetFromMap(new WeakHashMap<>());

  private BallastClients() {}

  /** Sees balancers open and close; called on the channel's synchronization context. */
  public interface Observer {
    /**
     * A balancer opened.
     *
     * @param client the balancer and its overload protection
     */
    void opened(Client client);

    /**
     * A balancer closed; its counters stop moving.
     *
     * @param client the client that {@link #opened} announced
     */
    void closed(Client client);
  }

  /**
   * One channel's balancer for its target, with the target's client-side overload protection.
   * The getters are safe from any thread.
   */
  public static final class Client {
    private final String target;
    private final long channel;
    private final Balancer balancer;
    private final AdaptiveThrottle throttle;
    private final RetryBudget retryBudget;
    private final TokenBucket rateLimit;
    private final IntSupplier replacementsInUse;

    Client(String target, long channel, Balancer balancer, AdaptiveThrottle throttle, RetryBudget retryBudget,
        TokenBucket rateLimit, IntSupplier replacementsInUse) {
      this.target = Objects.requireNonNull(target, "target");
      this.channel = channel;
      this.balancer = Objects.requireNonNull(balancer, "balancer");
      this.throttle = throttle;
      this.retryBudget = retryBudget;
      this.rateLimit = rateLimit;
      this.replacementsInUse = replacementsInUse;
    }

    /**
     * The channel's authority, e.g. {@code greeter.prod:443}.
     *
     * @return the target
     */
    public String target() {
      return target;
    }

    /**
     * A number that tells this process's channels apart (two channels to one target have two),
     * kept by the channel across balancer replacements.
     *
     * @return the channel's number
     */
    public long channel() {
      return channel;
    }

    /**
     * The channel's balancer: its subset, health and policy.
     *
     * @return the balancer
     */
    public Balancer balancer() {
      return balancer;
    }

    /**
     * The adaptive throttle.
     *
     * @return the throttle, or {@code null} when the service config turned it off
     */
    public AdaptiveThrottle throttle() {
      return throttle;
    }

    /**
     * The retry budget.
     *
     * @return the budget, or {@code null} when the service config turned it off
     */
    public RetryBudget retryBudget() {
      return retryBudget;
    }

    /**
     * The client's own rate limit ({@code rateLimit} in the service config).
     *
     * @return the bucket, or {@code null} when it has none
     */
    public TokenBucket rateLimit() {
      return rateLimit;
    }

    /**
     * Stand-ins the channel connects to in place of unavailable subset members (see {@code
     * Replacements}), as of its latest reconciliation.
     *
     * @return the count
     */
    public int replacementsInUse() {
      return replacementsInUse.getAsInt();
    }

    @Override
    public String toString() {
      return "Client{" + target + ", channel " + channel + ", " + balancer.policy().name() + "}";
    }
  }

  /**
   * Adds {@code observer} and tells it at once of every balancer open now.
   *
   * @param observer told of every balancer that opens and closes
   * @return removes the observer (closing no balancer)
   */
  public static Runnable observe(Observer observer) {
    Objects.requireNonNull(observer, "observer");
    // Under the lock, so that a balancer opening meanwhile is seen exactly once.
    synchronized (open) {
      observers.add(observer);
      for (Client client : new ArrayList<>(open)) {
        observer.opened(client);
      }
    }
    return () -> observers.remove(observer);
  }

  static long nextChannel() {
    return CHANNELS.incrementAndGet();
  }

  static void opened(Client client) {
    synchronized (open) {
      open.add(client);
      for (Observer observer : observers) {
        observer.opened(client);
      }
    }
  }

  static void closed(Client client) {
    synchronized (open) {
      open.remove(client);
      for (Observer observer : observers) {
        observer.closed(client);
      }
    }
  }
}
