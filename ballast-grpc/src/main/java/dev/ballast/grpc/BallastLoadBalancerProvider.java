package dev.ballast.grpc;

import dev.ballast.time.NanoClock;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code ballast} load-balancing policy for gRPC-Java: subsetting, backend health with lame
 * duck and flow control, and Ballast's picking policies. gRPC finds it through {@code
 * META-INF/services}; select it in a service config:
 *
 * <pre>{@code
 * {"loadBalancingConfig": [{"ballast": {"subsetSize": 20, "policy": "weighted_round_robin"}}]}
 * }</pre>
 *
 * <p>{@code docs/grpc.md} describes every field. A bad config is reported to gRPC as an error
 * naming the field, the value and what is allowed; this class never throws from parsing.
 */
public final class BallastLoadBalancerProvider extends LoadBalancerProvider {
  /** The policy name in service configs. */
  public static final String POLICY_NAME = "ballast";

  /**
   * A backend's stable name for subsetting, set by a name resolver on an {@link
   * EquivalentAddressGroup}'s attributes (for example a task ordinal or pod name). Without it the
   * first address ({@code host:port}) is the key; an address that changes on restart moves the
   * backend in every client's subset order, so resolvers that know a stable name should set it.
   */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<String> BACKEND_KEY = Attributes.Key.create("dev.ballast.grpc.backendKey");

  /**
   * A backend's zone (locality, failure domain), set by a name resolver on an {@link
   * EquivalentAddressGroup}'s attributes, for zone routing (docs/zones.md). Without it the
   * balancer reads gRPC's locality attribute ({@code EquivalentAddressGroup.ATTR_LOCALITY_NAME},
   * which the xDS resolver sets), then the service config's {@code zones} map.
   */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<String> ZONE = Attributes.Key.create("dev.ballast.grpc.zone");

  private static final Logger logger = Logger.getLogger(BallastLoadBalancerProvider.class.getName());
  // One notice of each level per process: every channel and every resolution re-parses the config.
  private static final AtomicBoolean toldAboutIdentity = new AtomicBoolean();
  private static final AtomicBoolean warnedAboutIdentity = new AtomicBoolean();
  // Drawn once per process so that anonymous clients spread over different subsets.
  private static final long ANONYMOUS_SEED = new SecureRandom().nextLong();

  private final BallastConfigParser parser;

  /**
   * The provider gRPC finds through {@code META-INF/services}; anonymous clients of this process
   * share one random seed.
   */
  public BallastLoadBalancerProvider() {
    this(ANONYMOUS_SEED);
  }

  /** A provider whose anonymous clients draw their subsets from {@code anonymousSeed} (tests repeat a run). */
  BallastLoadBalancerProvider(long anonymousSeed) {
    this.parser =
        new BallastConfigParser(
            System::getProperty,
            System::getenv,
            key -> BootstrapHolder.METADATA.value(key),
            anonymousSeed,
            (level, message) -> {
              AtomicBoolean once = level == Level.WARNING ? warnedAboutIdentity : toldAboutIdentity;
              if (once.compareAndSet(false, true)) {
                String problem = BootstrapHolder.METADATA.problem();
                logger.log(level, problem == null ? message : message + "; the xDS bootstrap: " + problem);
              }
            });
  }

  /**
   * The xDS bootstrap's node metadata, read once per process on first use, as gRPC reads its
   * bootstrap once.
   */
  private static final class BootstrapHolder {
    static final XdsBootstrapMetadata METADATA = XdsBootstrapMetadata.read(System::getProperty, System::getenv);
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int getPriority() {
    return 5;
  }

  @Override
  public String getPolicyName() {
    return POLICY_NAME;
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    // Latencies are measured exactly; the pick path reads the cached millisecond clock.
    return new BallastLoadBalancer(helper, NanoClock.system(), NanoClock.cached(), this::defaultConfig);
  }

  /**
   * Parses a config. A bad one is an UNAVAILABLE error (gRPC treats a config it cannot use so,
   * gRFC A21, and so do its own policies) whose description is one line naming the key, its value
   * and what is allowed, with no cause: under xDS the description travels back to the control plane
   * in the NACK's {@code error_detail}, where gRPC prints a cause with its whole stack trace (about
   * 3 KB of Ballast's and gRPC's class names). A failure that is not a bad value (a defect) is
   * logged here with its stack trace, and the NACK names only the exception.
   */
  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    try {
      return ConfigOrError.fromConfig(parser.parse(rawConfig));
    } catch (IllegalArgumentException e) {
      return ConfigOrError.fromError(Status.UNAVAILABLE.withDescription("ballast config: " + oneLine(e.getMessage())));
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "ballast config: parsing a config failed (a defect of Ballast)", e);
      return ConfigOrError.fromError(Status.UNAVAILABLE.withDescription(
          "ballast config: " + oneLine(e.toString()) + " (a defect of Ballast, logged by the client with its stack trace)"));
    }
  }

  private static String oneLine(String message) {
    return message.replace("\r", "\\r").replace("\n", "\\n");
  }

  /** The config of a channel that selected the policy by name only. */
  private BallastConfig defaultConfig() {
    return parser.parse(Map.of());
  }
}
