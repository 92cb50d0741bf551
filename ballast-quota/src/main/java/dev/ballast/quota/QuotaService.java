package dev.ballast.quota;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.ballast.health.NanoClock;
import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.QuotaProto.GetCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityRequest;
import dev.ballast.quota.v1.QuotaProto.ReleaseCapacityResponse;
import dev.ballast.quota.v1.QuotaProto.ResourceRequest;
import dev.ballast.quota.v1.QuotaProto.ResourceResponse;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The quota service's logic and its gRPC binding ({@code ballast.quota.v1.Quota}): shares each
 * configured resource's capacity among the clients that ask for it, with weighted max-min
 * fairness, in leases. See {@link ResourceState} for the grant rule and docs/quota.md for the
 * bounds it keeps.
 *
 * <p>A malformed request (bytes that are not the message, a NaN or negative demand, an empty
 * client id) is answered INVALID_ARGUMENT, an unknown resource NOT_FOUND, each with a description
 * naming the value; no request can stop the service.
 */
public final class QuotaService implements BindableService {
  private static final Logger logger = Logger.getLogger(QuotaService.class.getName());

  private final Map<String, ResourceState> resources = new LinkedHashMap<>();
  private final NanoClock clock;

  private QuotaService(List<ResourceConfig> configs, boolean learn, NanoClock clock) {
    this.clock = clock;
    long now = clock.nanoTime();
    for (ResourceConfig config : configs) {
      if (resources.putIfAbsent(config.name(), new ResourceState(config, now, learn)) != null) {
        throw new IllegalArgumentException("resources: '" + config.name() + "' twice (expected: each name at most once)");
      }
    }
    if (resources.isEmpty()) {
      throw new IllegalArgumentException("resources: none (expected: at least one)");
    }
  }

  /**
   * A service that starts learning: for each resource's first lease length it grants a client at
   * most what it reports holding (see {@link ResourceState}). This is the safe start for a server
   * that may be a restart.
   */
  public static QuotaService create(List<ResourceConfig> resources) {
    return create(resources, true, NanoClock.system());
  }

  /**
   * @param learn whether to start learning; without it the service hands out the whole capacity
   *     from the first request, which is right only if no other instance has granted leases for
   *     these resources within a lease length
   */
  public static QuotaService create(List<ResourceConfig> resources, boolean learn, NanoClock clock) {
    return new QuotaService(List.copyOf(resources), learn, clock);
  }

  /** Grants the client a lease for every resource of the request, in the request's order. */
  public GetCapacityResponse getCapacity(GetCapacityRequest request) throws StatusException {
    List<ResourceState> states = new ArrayList<>(request.resources().size());
    for (ResourceRequest resource : request.resources()) {
      states.add(resource(resource.resourceId()));
    }
    long now = clock.nanoTime();
    List<ResourceResponse> leases = new ArrayList<>(states.size());
    for (int i = 0; i < states.size(); i++) {
      leases.add(states.get(i).request(request.clientId(), request.resources().get(i), now));
    }
    return new GetCapacityResponse(leases);
  }

  /** Forgets the client's leases of the listed resources (of all of them if none is listed). */
  public void releaseCapacity(ReleaseCapacityRequest request) throws StatusException {
    List<ResourceState> states = new ArrayList<>();
    if (request.resourceIds().isEmpty()) {
      states.addAll(resources.values());
    } else {
      for (String id : request.resourceIds()) {
        states.add(resource(id));
      }
    }
    states.forEach(state -> state.release(request.clientId()));
  }

  /** The configured resources' names. */
  public Set<String> resourceNames() {
    return resources.keySet();
  }

  /** The sum of the leases of a resource outstanding now. */
  public double granted(String resource) {
    return require(resource).granted(clock.nanoTime());
  }

  /** The clients holding a lease of a resource now. */
  public int clients(String resource) {
    return require(resource).clients(clock.nanoTime());
  }

  /** Whether a resource is still in its learning period. */
  public boolean learning(String resource) {
    return require(resource).learning(clock.nanoTime());
  }

  private ResourceState require(String resource) {
    ResourceState state = resources.get(resource);
    if (state == null) {
      throw new IllegalArgumentException("resource: '" + resource + "' (expected: one of " + resources.keySet() + ")");
    }
    return state;
  }

  private ResourceState resource(String id) throws StatusException {
    ResourceState state = resources.get(id);
    if (state == null) {
      throw Status.NOT_FOUND
          .withDescription("ballast quota: resource_id: '" + id + "' (expected: one of " + resources.keySet() + ")")
          .asException();
    }
    return state;
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(QuotaGrpc.SERVICE_NAME)
        .addMethod(QuotaGrpc.withRawRequest(QuotaGrpc.GET_CAPACITY),
            ServerCalls.asyncUnaryCall(handler("GetCapacityRequest", GetCapacityRequest::parseFrom, this::getCapacity)))
        .addMethod(QuotaGrpc.withRawRequest(QuotaGrpc.RELEASE_CAPACITY),
            ServerCalls.asyncUnaryCall(handler("ReleaseCapacityRequest", ReleaseCapacityRequest::parseFrom, request -> {
              releaseCapacity(request);
              return new ReleaseCapacityResponse();
            })))
        .build();
  }

  private interface Parser<T> {
    T parse(byte[] bytes) throws InvalidProtocolBufferException;
  }

  private interface Handler<ReqT, RespT> {
    RespT handle(ReqT request) throws StatusException;
  }

  /** Decodes the request itself, so that a bad one gets INVALID_ARGUMENT with the reason. */
  private static <ReqT, RespT> ServerCalls.UnaryMethod<byte[], RespT> handler(
      String type, Parser<ReqT> parser, Handler<ReqT, RespT> handler) {
    return (bytes, response) -> {
      ReqT request;
      try {
        request = parser.parse(bytes);
      } catch (InvalidProtocolBufferException e) {
        response.onError(Status.INVALID_ARGUMENT
            .withDescription("ballast quota: malformed " + type + ": " + e.getMessage()).asException());
        return;
      }
      try {
        respond(response, handler.handle(request));
      } catch (StatusException e) {
        response.onError(e);
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "ballast quota: failed to answer a " + type, e);
        response.onError(Status.INTERNAL.withDescription("ballast quota: " + e).asException());
      }
    };
  }

  private static <T> void respond(StreamObserver<T> response, T value) {
    response.onNext(value);
    response.onCompleted();
  }
}
