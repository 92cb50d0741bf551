package dev.ballast.spring.client;

import dev.ballast.annotation.Experimental;
import dev.ballast.health.HealthConfig;
import dev.ballast.health.OutlierConfig;
import dev.ballast.http.BallastHeaders;
import dev.ballast.http.BallastHttpClient;
import dev.ballast.http.HttpBalancer;
import dev.ballast.overload.RetryPolicy;
import dev.ballast.overload.ThrottleConfig;
import dev.ballast.overload.TokenBucketConfig;
import dev.ballast.pick.Policy;
import dev.ballast.pick.ZoneConfig;
import dev.ballast.subset.SubsetConfig;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything Ballast needs to balance one service under Spring Cloud LoadBalancer: core's config
 * records, read from the {@code ballast.*} and {@code ballast.clients.<service>.*} properties
 * through their declarations, and the few settings of the Spring front end itself.
 *
 * @param enabled whether Ballast balances the service (otherwise Spring's own balancer does)
 * @param policy the picking policy
 * @param health flow control, health-check intervals, idle detection and warm-up
 * @param outlierEjection outlier ejection
 * @param subsetting the subset: algorithm, size, salt, the client's index
 * @param zone the client's own zone, or null for none
 * @param zoneRouting how the client routes by zone when it has one
 * @param throttle the adaptive throttle of first attempts, or null when off
 * @param retry retries: attempts, backoff, the budget's settings, the overload retry floor
 * @param retryBudget whether the retry budget caps retries
 * @param rateLimit the client's own rate limit, or null for none
 * @param healthCheckPath the path every backend's health is checked on by HTTP, or null to
 *     check backends by TCP connects while they do not serve
 * @param healthCheckTimeout how long a health check may take
 * @param pickTimeout how long a request without a deadline waits for a backend when none can take
 *     it now
 * @param instancesRefreshInterval how often the service's instances are read again from a
 *     supplier whose list completes (a streaming supplier is followed as it emits)
 */
@Experimental
public record BallastClientConfig(
    boolean enabled,
    Policy policy,
    HealthConfig health,
    OutlierConfig outlierEjection,
    SubsetConfig subsetting,
    String zone,
    ZoneConfig zoneRouting,
    ThrottleConfig throttle,
    RetryPolicy retry,
    boolean retryBudget,
    TokenBucketConfig rateLimit,
    String healthCheckPath,
    Duration healthCheckTimeout,
    Duration pickTimeout,
    Duration instancesRefreshInterval) {

  /**
   * Checks the settings that have no other check.
   *
   * @param enabled whether Ballast balances the service
   * @param policy the picking policy
   * @param health flow control and health-check intervals
   * @param outlierEjection outlier ejection
   * @param subsetting the subset
   * @param zone the client's zone, or null
   * @param zoneRouting zone routing
   * @param throttle the throttle, or null
   * @param retry retries
   * @param retryBudget whether the budget applies
   * @param rateLimit the rate limit, or null
   * @param healthCheckPath the health path, or null
   * @param healthCheckTimeout the health check's timeout
   * @param pickTimeout the wait for a backend
   * @param instancesRefreshInterval how often instances are read again
   * @throws NullPointerException for a required part left null
   */
  public BallastClientConfig {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(health, "health");
    Objects.requireNonNull(outlierEjection, "outlierEjection");
    Objects.requireNonNull(subsetting, "subsetting");
    Objects.requireNonNull(zoneRouting, "zoneRouting");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(healthCheckTimeout, "healthCheckTimeout");
    Objects.requireNonNull(pickTimeout, "pickTimeout");
    Objects.requireNonNull(instancesRefreshInterval, "instancesRefreshInterval");
  }

  /**
   * A new balancer with these settings, with no backends until its instances arrive.
   *
   * @param healthCheckClient the JDK client that checks health paths and sends {@code
   *     prequal_probing}'s probes (to {@value BallastHeaders#PROBE_PATH}, where the server filters
   *     answer them), or null when {@link #healthCheckPath()} is null and the policy does not probe
   * @return the balancer; it starts a thread of its own for control-plane work
   * @throws IllegalArgumentException for settings that do not go together (an algorithm that
   *     needs a client index, without one)
   */
  public HttpBalancer newBalancer(HttpClient healthCheckClient) {
    HttpBalancer.Builder builder = HttpBalancer.builder()
        .policy(policy)
        .health(health)
        .outlierEjection(outlierEjection)
        .subsetting(subsetting)
        .zoneRouting(zoneRouting)
        .throttle(throttle)
        .retry(retry)
        .retryBudget(retryBudget)
        .rateLimit(rateLimit)
        .healthCheckTimeout(healthCheckTimeout)
        .pickTimeout(pickTimeout);
    if (zone != null) {
      builder.zone(zone);
    }
    if (healthCheckPath != null) {
      builder.healthCheck(BallastHttpClient.httpHealthCheck(
          Objects.requireNonNull(healthCheckClient, "healthCheckClient"), healthCheckPath, healthCheckTimeout));
    }
    if (policy.needsProbes()) {
      builder.probes(BallastHttpClient.httpProbes(Objects.requireNonNull(healthCheckClient, "healthCheckClient"),
          BallastHeaders.PROBE_PATH, HttpBalancer.PROBE_TIMEOUT.defaultValue()));
    }
    return builder.build();
  }
}
