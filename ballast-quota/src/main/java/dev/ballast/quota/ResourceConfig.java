package dev.ballast.quota;

import dev.ballast.internal.Ranges;
import java.time.Duration;

/**
 * A resource the quota service shares out: its global rate limit and the terms of its leases.
 *
 * @param name the resource's id in requests: 1 to 256 characters
 * @param capacity the global limit, per second, shared among the clients: 0..1e12
 * @param safeCapacity the rate a client falls back to once its lease has expired and it cannot
 *     reach the service (default 0: fail closed); 0..capacity. While the service cannot be
 *     reached, the global rate can exceed the capacity by at most the safe capacities of the
 *     clients without a lease, so {@code capacity / expected clients} keeps the total near the
 *     limit.
 * @param leaseLength how long a grant holds (default 20 s; 100 ms..1 h). Also the learning
 *     period of a restarted server: by then every lease of the previous one has been reported or
 *     has expired.
 * @param refreshInterval how often a client asks again (default 5 s; 10 ms up to less than the
 *     lease length, so that a refresh that fails can be retried before the lease runs out)
 * @param maxClients how many clients may hold a lease at once (default 10,000; 1..10,000,000):
 *     the bound on the server's memory for the resource (a client costs about 400 bytes until its
 *     lease expires). A new client past it is answered RESOURCE_EXHAUSTED naming the bound; the
 *     clients already in keep their leases.
 */
public record ResourceConfig(
    String name, double capacity, double safeCapacity, Duration leaseLength, Duration refreshInterval, int maxClients) {
  /** The default lease length: 20 s, {@code --lease}'s default. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(20);
  /** The default refresh interval: 5 s, {@code --refresh}'s default. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(5);
  /** The default bound on clients holding a lease at once: {@value}. */
  public static final int DEFAULT_MAX_CLIENTS = 10_000;
  /** The largest bound on clients that may be set: {@value}. */
  public static final int MAX_MAX_CLIENTS = 10_000_000;

  /**
   * Checks every field and the relation between the lease length and the refresh interval.
   *
   * @param name the resource's name, as clients ask for it
   * @param capacity the global limit, per second
   * @param safeCapacity the rate a client falls back to when it cannot reach the service
   * @param leaseLength how long a grant holds
   * @param refreshInterval how often a client asks again
   * @param maxClients how many clients may hold a lease at once
   * @throws IllegalArgumentException {@code "name: value (expected: ...)"} for a bad value, a safe
   *     capacity above the capacity, or a refresh interval not shorter than the lease
   */
  public ResourceConfig {
    Ranges.checkInt("maxClients", maxClients, 1, MAX_MAX_CLIENTS);
    QuotaMessages.checkId("name", name);
    QuotaMessages.checkRate("capacity", capacity);
    if (!(safeCapacity >= 0 && safeCapacity <= capacity)) {
      throw new IllegalArgumentException(
          "safeCapacity: " + Ranges.format(safeCapacity) + " (expected: 0.." + Ranges.format(capacity) + ", the capacity)");
    }
    Ranges.checkDuration("leaseLength", leaseLength, Duration.ofMillis(100), Duration.ofHours(1));
    if (refreshInterval != null && refreshInterval.compareTo(leaseLength) >= 0) {
      throw new IllegalArgumentException(
          "refreshInterval: " + Ranges.format(refreshInterval) + " (expected: less than the lease length, "
              + Ranges.format(leaseLength) + ")");
    }
    Ranges.checkDuration("refreshInterval", refreshInterval, Duration.ofMillis(10), leaseLength);
  }

  /**
   * A resource with at most {@link #DEFAULT_MAX_CLIENTS} clients.
   *
   * @param name the resource's name, as clients ask for it
   * @param capacity the global limit, per second
   * @param safeCapacity the rate a client falls back to when it cannot reach the service
   * @param leaseLength how long a grant holds
   * @param refreshInterval how often a client asks again
   * @throws IllegalArgumentException for a bad value, as the canonical constructor words it
   */
  public ResourceConfig(String name, double capacity, double safeCapacity, Duration leaseLength, Duration refreshInterval) {
    this(name, capacity, safeCapacity, leaseLength, refreshInterval, DEFAULT_MAX_CLIENTS);
  }

  /**
   * A resource with the default lease terms and no safe capacity.
   *
   * @param name the resource's name, as clients ask for it
   * @param capacity the global limit, per second
   * @return the resource
   * @throws IllegalArgumentException for a bad name or capacity
   */
  public static ResourceConfig of(String name, double capacity) {
    return new ResourceConfig(name, capacity, 0, DEFAULT_LEASE, DEFAULT_REFRESH);
  }

  /**
   * This resource with another safe capacity.
   *
   * @param safeCapacity the rate a client falls back to when it cannot reach the service
   * @return a new config
   * @throws IllegalArgumentException when it is negative or above the capacity
   */
  public ResourceConfig withSafeCapacity(double safeCapacity) {
    return new ResourceConfig(name, capacity, safeCapacity, leaseLength, refreshInterval, maxClients);
  }

  /**
   * This resource with other lease terms.
   *
   * @param leaseLength how long a grant holds
   * @param refreshInterval how often a client asks again, shorter than the lease
   * @return a new config
   * @throws IllegalArgumentException for a value out of range or a refresh not shorter than the lease
   */
  public ResourceConfig withLease(Duration leaseLength, Duration refreshInterval) {
    return new ResourceConfig(name, capacity, safeCapacity, leaseLength, refreshInterval, maxClients);
  }

  /**
   * This resource with another bound on clients.
   *
   * @param maxClients how many clients may hold a lease at once
   * @return a new config
   * @throws IllegalArgumentException when it is out of range
   */
  public ResourceConfig withMaxClients(int maxClients) {
    return new ResourceConfig(name, capacity, safeCapacity, leaseLength, refreshInterval, maxClients);
  }
}
