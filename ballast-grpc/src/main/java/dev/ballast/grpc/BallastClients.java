package dev.ballast.grpc;

import dev.ballast.annotation.Experimental;
import dev.ballast.overload.AdaptiveThrottle;
import dev.ballast.overload.RetryBudget;
import dev.ballast.overload.TokenBucket;
import dev.ballast.pick.Balancer;
import io.grpc.LoadBalancer;
import io.grpc.ManagedChannelBuilder;
import io.grpc.NameResolver;
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
 * The {@code ballast} policy's balancers of the channels an application follows, as they open and
 * close, for metrics and diagnostics ({@code ballast-micrometer}'s {@code
 * BallastGrpcMeters.bindClients} binds each to a meter registry). gRPC creates load balancers
 * itself, so the application says which channels it wants to see: it creates a {@code
 * BallastClients}, passes it to each channel's builder with {@link #track}, and registers an {@link
 * Observer}, which is told of every balancer open now and of every one that opens or closes later.
 *
 * <pre>{@code
 * BallastClients clients = BallastClients.create();
 * MeterBinding meters = BallastGrpcMeters.bindClients(clients, registry, Tags.empty());
 * ManagedChannel channel = clients.track(Grpc.newChannelBuilder(target, credentials)).build();
 * }</pre>
 *
 * <p>Nothing here is global: a channel built without {@link #track} is seen by no one, and two
 * {@code BallastClients} (two libraries in one process, each with its own registry) never see
 * each other's channels. A channel's balancer is replaced when its service config changes the
 * policy or the health settings (the per-backend statistics start over): the observer sees the
 * old one close and the new one open. The open balancers are held weakly: a channel dropped
 * without shutdown does not stay reachable from here.
 *
 * <p>The balancer finds this object among the channel's name resolver arguments ({@code
 * ManagedChannelBuilder.setNameResolverArg}, gRPC 1.70 or later); under xDS, the cluster's
 * balancer sees the same arguments.
 */
@Experimental("it reaches a channel's balancers through gRPC's name resolver arguments, themselves experimental in gRPC")
public final class BallastClients {
  /** Where a channel builder carries the object to the channel's balancers. */
  static final NameResolver.Args.Key<BallastClients> ARG = NameResolver.Args.Key.create("dev.ballast.grpc.clients");

  private final AtomicLong channels = new AtomicLong();
  private final List<Observer> observers = new CopyOnWriteArrayList<>();
  private final Set<Client> open = Collections.newSetFromMap(new WeakHashMap<>());

  private BallastClients() {}

  /**
   * A new, empty set of followed channels.
   *
   * @return the object to pass to {@link #track} and to observe
   */
  public static BallastClients create() {
    return new BallastClients();
  }

  /**
   * Makes the channels {@code builder} builds report their {@code ballast} balancers here.
   *
   * @param builder the channel's builder
   * @param <T> the builder's type
   * @return {@code builder}, for chaining
   */
  public <T extends ManagedChannelBuilder<?>> T track(T builder) {
    Objects.requireNonNull(builder, "builder").setNameResolverArg(ARG, this);
    return builder;
  }

  /**
   * The object a channel's balancer reports to, from the channel's name resolver arguments; null
   * when the channel was built without {@link #track} (or by a gRPC too old to carry them).
   */
  static BallastClients of(LoadBalancer.Helper helper) {
    try {
      NameResolver.Args args = helper.getNameResolverArgs();
      return args == null ? null : args.getArg(ARG);
    } catch (UnsupportedOperationException | LinkageError e) {
      // A helper that does not forward the arguments, or a gRPC without them: nobody is watching.
      return null;
    }
  }

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
     * The channel's authority.
     *
     * @return the authority, such as {@code greeter.prod:443}
     */
    public String target() {
      return target;
    }

    /**
     * A number that tells the followed channels apart (two channels to one target have two), kept
     * by the channel across balancer replacements.
     *
     * @return 1 for the first channel tracked, 2 for the second, ...
     */
    public long channel() {
      return channel;
    }

    /**
     * The channel's core balancer: its subset, the backends' states and the policy.
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
   * @param observer what to tell
   * @return removes the observer (closing no balancer)
   */
  public Runnable observe(Observer observer) {
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

  /**
   * The balancers open now in the channels followed.
   *
   * @return a copy, in no particular order
   */
  public List<Client> open() {
    synchronized (open) {
      return List.copyOf(open);
    }
  }

  long nextChannel() {
    return channels.incrementAndGet();
  }

  void opened(Client client) {
    synchronized (open) {
      open.add(client);
      for (Observer observer : observers) {
        observer.opened(client);
      }
    }
  }

  void closed(Client client) {
    synchronized (open) {
      open.remove(client);
      for (Observer observer : observers) {
        observer.closed(client);
      }
    }
  }
}
