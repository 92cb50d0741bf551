package dev.ballast.quota;

import dev.ballast.overload.Backoff;
import dev.ballast.overload.TokenBucket;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.Lease;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.quota.v1.ResourceResponse;
import dev.ballast.time.NanoClock;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One resource's lease, kept fresh in the background and enforced locally: {@link #tryAcquire()}
 * takes a token from a {@link TokenBucket} whose rate is the lease's capacity, so the request path
 * makes no network call and takes no lock of this class.
 *
 * <p>In the background it asks the service every refresh interval the service gives (and at once
 * when {@link #setWants} changes the demand), reporting the lease it holds so that a restarted
 * service can learn it. A failed call is retried with backoff. The lease's expiry counts from when
 * the request was sent, never later than the server's. When the lease has expired and no new one
 * came, the bucket falls back to the safe capacity: the service's, or until it has answered once,
 * the one set here (default 0: before the first lease, nothing beyond the bucket's burst, with
 * which it starts full).
 */
public final class ResourceQuota implements AutoCloseable {
  private static final Logger logger = Logger.getLogger(ResourceQuota.class.getName());
  private static final long DEFAULT_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final double BUCKET_MAX_RATE = 1e9;
  private static final int MAX_REDIRECTS_AT_ONCE = 3;

  /** Where the rate being enforced comes from. */
  public enum Source {
    /** No lease yet: the safe capacity set on the builder. */
    NO_LEASE_YET,
    /** A lease from the service that has not expired. */
    LEASE,
    /** The lease expired and the service could not be reached: its safe capacity. */
    SAFE_CAPACITY
  }

  private final QuotaClient client;
  private final String resourceId;
  private final double weight;
  private final TokenBucket bucket;
  private final QuotaTransport transport;
  private final QuotaTimer timer;
  private final NanoClock clock;
  private final Backoff backoff;
  private final long rpcTimeoutNanos;
  private final SplittableRandom random;

  // Guarded by this. The bucket is not: it is thread-safe, and the request path uses only it.
  private double wants;
  private double safeCapacity;
  private double leaseCapacity;
  private long leaseExpiresAtNanos;
  private Source source = Source.NO_LEASE_YET;
  private long refreshNanos = DEFAULT_REFRESH_NANOS;
  private int failures;
  private int redirects;
  private boolean inFlight;
  private boolean askAgain;
  private boolean closed;
  private Runnable cancelRefresh = () -> {};
  private Runnable cancelExpiry = () -> {};
  private long leases;
  private long failedCalls;

  ResourceQuota(Builder settings, QuotaTransport transport, QuotaTimer timer, NanoClock clock, Backoff backoff,
      long rpcTimeoutNanos, SplittableRandom random) {
    this.client = settings.client;
    this.resourceId = settings.resourceId;
    this.weight = settings.weight;
    this.wants = settings.wants;
    this.safeCapacity = settings.safeCapacity;
    this.transport = transport;
    this.timer = timer;
    this.clock = clock;
    this.backoff = backoff;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.random = random;
    this.bucket = TokenBucket.create(bucketRate(settings.safeCapacity), settings.burst, clock);
  }

  synchronized void start() {
    send();
  }

  /**
   * Takes one token: whether the lease admits one more request now. No network call, no lock of
   * this class.
   *
   * @return whether the request may go
   */
  public boolean tryAcquire() {
    return bucket.tryAcquire();
  }

  /**
   * Takes {@code n} tokens at once, or none.
   *
   * @param n the tokens, 1..burst
   * @return whether they were taken
   * @throws IllegalArgumentException when {@code n} is out of range
   */
  public boolean tryAcquire(long n) {
    return bucket.tryAcquire(n);
  }

  /**
   * Changes the demand reported to the service, and asks it again at once.
   *
   * @param wants the demand, per second, 0..1e12
   * @throws IllegalArgumentException when it is out of range
   */
  public synchronized void setWants(double wants) {
    QuotaMessages.checkRate("wants", wants);
    this.wants = wants;
    if (closed) {
      return;
    }
    if (inFlight) {
      askAgain = true;
    } else {
      cancelRefresh.run();
      send();
    }
  }

  /**
   * The demand reported to the service.
   *
   * @return the demand, per second
   */
  public synchronized double wants() {
    return wants;
  }

  /**
   * The resource's name on the service.
   *
   * @return the name
   */
  public String resourceId() {
    return resourceId;
  }

  /**
   * The rate enforced now.
   *
   * @return the rate, per second
   */
  public double rate() {
    return bucket.rate();
  }

  /**
   * Where the rate enforced now comes from.
   *
   * @return the source
   */
  public synchronized Source source() {
    return source;
  }

  /**
   * Leases received so far.
   *
   * @return the count
   */
  public synchronized long leases() {
    return leases;
  }

  /**
   * Calls to the service that failed so far.
   *
   * @return the count
   */
  public synchronized long failedCalls() {
    return failedCalls;
  }

  /** Stops refreshing and gives the lease back to the service (best effort); the bucket then admits nothing. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      cancelRefresh.run();
      cancelExpiry.run();
      bucket.setRate(0);
    }
    client.forget(this);
    transport.releaseCapacity(
        ReleaseCapacityRequest.newBuilder().setClientId(client.clientId()).addResourceId(resourceId).build(), rpcTimeoutNanos);
  }

  private void send() {
    inFlight = true;
    askAgain = false;
    long sentAt = clock.nanoTime();
    long left = leaseExpiresAtNanos - sentAt;
    // The weight goes out even when it is 1 (the wire's default): a server reads both the same.
    ResourceRequest.Builder resource = ResourceRequest.newBuilder().setResourceId(resourceId).setWants(wants).setWeight(weight);
    if (source == Source.LEASE && left > 0) {
      resource.setHas(Lease.newBuilder().setCapacity(leaseCapacity).setExpiresInMillis(TimeUnit.NANOSECONDS.toMillis(left)));
    }
    GetCapacityRequest request = GetCapacityRequest.newBuilder().setClientId(client.clientId()).addResource(resource).build();
    transport.getCapacity(request, rpcTimeoutNanos, (response, error) -> answered(sentAt, response, error));
  }

  private synchronized void answered(long sentAt, GetCapacityResponse response, Throwable error) {
    inFlight = false;
    if (closed) {
      return;
    }
    ResourceResponse mine = null;
    if (response != null) {
      try {
        QuotaMessages.check(response);
        for (ResourceResponse r : response.getResourceList()) {
          if (r.getResourceId().equals(resourceId)) {
            mine = r;
          }
        }
        if (mine == null) {
          error = new IllegalStateException("the service's answer has no lease for '" + resourceId + "'");
        }
      } catch (IllegalArgumentException e) {
        error = new IllegalStateException("the service's answer is malformed: " + e.getMessage(), e);
      }
    }
    if (mine == null) {
      failed(error);
      return;
    }
    failures = 0;
    redirects = 0;
    leases++;
    Lease lease = mine.getLease();
    safeCapacity = mine.getSafeCapacity();
    leaseCapacity = lease.getCapacity();
    leaseExpiresAtNanos = sentAt + TimeUnit.MILLISECONDS.toNanos(lease.getExpiresInMillis());
    if (lease.getRefreshIntervalMillis() > 0) {
      refreshNanos = TimeUnit.MILLISECONDS.toNanos(lease.getRefreshIntervalMillis());
    }
    source = Source.LEASE;
    bucket.setRate(bucketRate(leaseCapacity));
    cancelExpiry.run();
    cancelExpiry = timer.schedule(this::checkExpiry, Math.max(0, leaseExpiresAtNanos - clock.nanoTime()));
    if (askAgain) {
      send();
    } else {
      cancelRefresh = timer.schedule(this::refresh, refreshNanos);
    }
  }

  private void failed(Throwable error) {
    failedCalls++;
    // A follower named the leader: ask it at once. A few in a row, then back off as for any failure,
    // in case the replicas disagree while an election settles.
    if (error instanceof QuotaTransport.Redirected && ++redirects <= MAX_REDIRECTS_AT_ONCE) {
      send();
      return;
    }
    redirects = 0;
    failures++;
    if (failures == 1) {
      logger.log(Level.FINE, "ballast quota: refreshing the lease of '" + resourceId + "' failed, retrying", error);
    }
    checkExpiry();
    // Retry sooner than the next refresh would come, to keep the lease if the service is back in time.
    long delay = Math.min(backoff.delayNanos(failures, random), refreshNanos);
    cancelRefresh = timer.schedule(() -> {
      transport.reconnectNow();
      refresh();
    }, delay);
  }

  private synchronized void refresh() {
    if (!closed && !inFlight) {
      send();
    }
  }

  private synchronized void checkExpiry() {
    if (!closed && source == Source.LEASE && clock.nanoTime() - leaseExpiresAtNanos >= 0) {
      source = Source.SAFE_CAPACITY;
      bucket.setRate(bucketRate(safeCapacity));
    }
  }

  /** The bucket counts up to 1e9 tokens a second; a lease beyond that is as good as unlimited. */
  private static double bucketRate(double rate) {
    return Math.min(rate, BUCKET_MAX_RATE);
  }

  /** A resource's settings; {@link #start()} asks for the first lease and returns at once. */
  public static final class Builder {
    private final QuotaClient client;
    private final String resourceId;
    private double wants;
    private double weight = 1;
    private long burst = 10;
    private double safeCapacity;

    Builder(QuotaClient client, String resourceId) {
      QuotaMessages.checkId("resourceId", resourceId);
      this.client = client;
      this.resourceId = resourceId;
    }

    /**
     * The demand to report, per second (default 0; 0..1e12); {@link ResourceQuota#setWants}
     * changes it.
     *
     * @param wants the demand
     * @return this builder
     * @throws IllegalArgumentException when it is out of range
     */
    public Builder wants(double wants) {
      QuotaMessages.checkRate("wants", wants);
      this.wants = wants;
      return this;
    }

    /**
     * The priority: hungry clients' shares are in proportion to weight (default 1; 1e-6..1e6).
     *
     * @param weight the weight
     * @return this builder
     * @throws IllegalArgumentException when it is out of range
     */
    public Builder weight(double weight) {
      QuotaMessages.checkWeight("weight", weight);
      this.weight = weight;
      return this;
    }

    /**
     * The local bucket's burst: tokens kept for requests that come together (default 10; 1..1e9).
     *
     * @param burst the burst
     * @return this builder
     * @throws IllegalArgumentException when it is out of range
     */
    public Builder burst(long burst) {
      if (burst < 1 || burst > 1_000_000_000L) {
        throw new IllegalArgumentException("burst: " + burst + " (expected: 1..1000000000)");
      }
      this.burst = burst;
      return this;
    }

    /**
     * The rate before the first lease arrives, until the service says its own (default 0;
     * 0..1e12). The bucket starts full.
     *
     * @param safeCapacity the rate, per second
     * @return this builder
     * @throws IllegalArgumentException when it is out of range
     */
    public Builder safeCapacity(double safeCapacity) {
      QuotaMessages.checkRate("safeCapacity", safeCapacity);
      this.safeCapacity = safeCapacity;
      return this;
    }

    /**
     * Starts keeping the lease: the first request to the service goes out at once.
     *
     * @return the quota, to close when done
     */
    public ResourceQuota start() {
      return client.start(this);
    }
  }
}
