package dev.ballast.quota;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.ballast.annotation.Experimental;
import dev.ballast.internal.Ranges;
import dev.ballast.quota.v1.GetCapacityRequest;
import dev.ballast.quota.v1.GetCapacityResponse;
import dev.ballast.quota.v1.QuotaGrpc;
import dev.ballast.quota.v1.ReleaseCapacityRequest;
import dev.ballast.quota.v1.ReleaseCapacityResponse;
import dev.ballast.quota.v1.ResourceRequest;
import dev.ballast.quota.v1.ResourceResponse;
import dev.ballast.time.NanoClock;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The quota service's logic and its gRPC binding ({@code ballast.quota.v1.Quota}): shares each
 * configured resource's capacity among the clients that ask for it, with weighted max-min
 * fairness, in leases. See {@link ResourceState} for the grant rule and docs/quota.md for the
 * bounds it keeps.
 *
 * <p>A malformed request (bytes that are not the message, a NaN or negative demand, an empty or
 * oversized client id) is answered INVALID_ARGUMENT, an unknown resource NOT_FOUND, a new client
 * past a resource's {@link ResourceConfig#maxClients()} RESOURCE_EXHAUSTED, each with a
 * description naming the value (a long one by its first characters); no request can stop the
 * service or grow its memory past the bound.
 *
 * <p>Behind mutual TLS, a lease belongs to the identity of the caller's certificate: the client id
 * only tells apart the processes that share one, and no caller can refresh or release another
 * identity's leases. Served by {@link QuotaServer} (or on a server built with {@link
 * #transportFilter()}), a lease also belongs to the connection that took it, so that two processes
 * sharing a client id are found out (see {@link #duplicateClientIds()}).
 *
 * <p>A replica of a replicated service leads some resources and follows the others ({@link
 * #lead}, {@link #follow}): a request for a resource it does not lead is answered UNAVAILABLE with
 * the leader's address in the trailer {@value #LEADER_TRAILER}. A replica leads under a {@link
 * Leadership} that it checks on every request: while the replica cannot confirm that it still
 * leads (its process was paused, or it cannot reach the coordination service), it grants nothing
 * and answers UNAVAILABLE as a follower does.
 */
public final class QuotaService implements BindableService {
  private static final Logger logger = Logger.getLogger(QuotaService.class.getName());
  /** The trailer that names the replica leading a resource, {@code host:port}, on a follower's UNAVAILABLE. */
  public static final String LEADER_TRAILER = "ballast-quota-leader";
  static final Metadata.Key<String> LEADER = Metadata.Key.of(LEADER_TRAILER, Metadata.ASCII_STRING_MARSHALLER);

  private final Map<String, Resource> resources = new LinkedHashMap<>();
  private final NanoClock clock;
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder refused = new LongAdder();

  /** A configured resource: its ledger while this service leads it, else where its leader is. */
  private static final class Resource {
    final ResourceConfig config;
    /** Null while another replica leads the resource (or none does yet). */
    volatile Led led;
    /** The leader's address while following; null if none is known. */
    volatile String leader;

    Resource(ResourceConfig config) {
      this.config = config;
    }

    /** The ledger while this service leads the resource, else null. */
    ResourceState state() {
      Led current = led;
      return current == null ? null : current.state();
    }
  }

  /** A resource's ledger and the leadership it grants under, read together in one volatile load. */
  private record Led(ResourceState state, Leadership leadership) {}

  private QuotaService(List<ResourceConfig> configs, boolean lead, boolean learn, NanoClock clock) {
    this.clock = clock;
    long now = clock.nanoTime();
    for (ResourceConfig config : configs) {
      Resource resource = new Resource(config);
      if (lead) {
        resource.led = new Led(new ResourceState(config, now, learn, duplicates, refused), Leadership.ALWAYS);
      }
      if (resources.putIfAbsent(config.name(), resource) != null) {
        throw new IllegalArgumentException("resources: " + Ranges.quote(config.name()) + " twice (expected: each name at most once)");
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
   *
   * @param resources the resources it serves, each name once
   * @return the service, on the system clock
   */
  public static QuotaService create(List<ResourceConfig> resources) {
    return create(resources, true, NanoClock.system());
  }

  /**
   * A service with a choice of start.
   *
   * @param resources the resources it serves, each name once
   * @param learn whether to start learning; without it the service hands out the whole capacity
   *     from the first request, which is right only if no other instance has granted leases for
   *     these resources within a lease length
   * @param clock the clock its leases run on
   * @return the service
   */
  public static QuotaService create(List<ResourceConfig> resources, boolean learn, NanoClock clock) {
    return new QuotaService(List.copyOf(resources), true, learn, clock);
  }

  /**
   * A replica that leads none of its resources yet: it answers UNAVAILABLE for each until {@link
   * #lead} or {@link #follow} says otherwise.
   *
   * @param resources the resources it may serve, each name once
   * @param clock the clock its leases run on
   * @return the service
   */
  public static QuotaService replica(List<ResourceConfig> resources, NanoClock clock) {
    return new QuotaService(List.copyOf(resources), false, false, clock);
  }

  /**
   * Starts granting leases of a resource, from an empty ledger and learning for one lease length:
   * a new leader does not know the leases the old one granted, exactly as after a restart. Does
   * nothing if this service leads it already. The leadership never lapses ({@link
   * Leadership#ALWAYS}): a replica elected through a coordination service leads with {@link
   * #lead(String, Leadership)}.
   *
   * @param resource a configured resource's name
   * @throws IllegalArgumentException if no resource has that name
   */
  public void lead(String resource) {
    lead(resource, Leadership.ALWAYS);
  }

  /**
   * Starts granting leases of a resource under {@code leadership}, from an empty ledger and learning
   * for one lease length, as {@link #lead(String)} does. Each request is granted only while the
   * leadership is {@linkplain Leadership#confirmedAt confirmed} at the instant it arrived; else it
   * is answered UNAVAILABLE, naming {@linkplain Leadership#otherLeader the other leader} if one is
   * known. If this service leads the resource already, its ledger stays and {@code leadership}
   * takes the old one's place.
   *
   * @param resource a configured resource's name
   * @param leadership what vouches for this replica's leadership on every request
   * @throws IllegalArgumentException if no resource has that name
   */
  @Experimental("the check on a replica's leadership is new")
  public void lead(String resource, Leadership leadership) {
    Objects.requireNonNull(leadership, "leadership");
    Resource r = require(resource);
    synchronized (r) {
      ResourceState state = r.state();
      r.led = new Led(state != null ? state : new ResourceState(r.config, clock.nanoTime(), true, duplicates, refused), leadership);
      r.leader = null;
    }
  }

  /**
   * Stops granting leases of a resource at once, forgetting its ledger, and sends its clients to
   * {@code leaderAddress} ({@code host:port}; null while no leader is known).
   *
   * @param resource a configured resource's name
   * @param leaderAddress where the leader is, named to clients in the {@value #LEADER_TRAILER} trailer; null if unknown
   * @throws IllegalArgumentException if no resource has that name
   */
  public void follow(String resource, String leaderAddress) {
    Resource r = require(resource);
    synchronized (r) {
      r.led = null;
      r.leader = leaderAddress;
    }
  }

  /**
   * Whether this service leads the resource: it keeps the resource's ledger, since {@link #lead}
   * and until {@link #follow}. It grants leases only while its leadership is also confirmed: see
   * {@link #grants}.
   *
   * @param resource a configured resource's name
   * @return true while this service leads the resource
   * @throws IllegalArgumentException if no resource has that name
   */
  public boolean leads(String resource) {
    return require(resource).led != null;
  }

  /**
   * Whether this service grants leases of the resource now: it leads it, and its leadership is
   * confirmed at this instant.
   *
   * @param resource a configured resource's name
   * @return true if a request for the resource arriving now would be granted a lease
   * @throws IllegalArgumentException if no resource has that name
   */
  @Experimental("the check on a replica's leadership is new")
  public boolean grants(String resource) {
    Led led = require(resource).led;
    return led != null && led.leadership().confirmedAt(clock.nanoTime());
  }

  /**
   * The clock this service times leases on.
   *
   * @return the clock given when the service was made
   */
  public NanoClock clock() {
    return clock;
  }

  /**
   * Marks each connection, so that the service tells two processes sharing a client id apart.
   * {@link QuotaServer} adds it; add it to a server you build yourself with {@code
   * ServerBuilder.addTransportFilter}.
   *
   * @return the filter
   */
  public ServerTransportFilter transportFilter() {
    return QuotaCaller.connections();
  }

  /**
   * Grants the client a lease for every resource of the request, in the request's order, as an
   * anonymous caller (no certificate identity).
   *
   * @param request what the client wants of each resource
   * @return its leases
   * @throws StatusException NOT_FOUND for an unknown resource, UNAVAILABLE (naming the leader) where
   *     this service does not lead, RESOURCE_EXHAUSTED past a resource's client bound
   * @throws IllegalArgumentException naming the value, if the request is out of bounds ({@link
   *     QuotaMessages#check(GetCapacityRequest)}; over gRPC such a request is INVALID_ARGUMENT)
   */
  public GetCapacityResponse getCapacity(GetCapacityRequest request) throws StatusException {
    return getCapacity(QuotaCaller.ANONYMOUS, QuotaMessages.check(request));
  }

  /** {@code request} was checked by its receiver. */
  GetCapacityResponse getCapacity(QuotaCaller caller, GetCapacityRequest request) throws StatusException {
    long now = clock.nanoTime();
    List<ResourceState> states = new ArrayList<>(request.getResourceCount());
    for (ResourceRequest resource : request.getResourceList()) {
      states.add(led(resource.getResourceId(), now));
    }
    GetCapacityResponse.Builder leases = GetCapacityResponse.newBuilder();
    for (int i = 0; i < states.size(); i++) {
      leases.addResource(states.get(i).request(caller, request.getClientId(), request.getResource(i), now));
    }
    return leases.build();
  }

  /**
   * Releases the client's leases of the request's resources (all of them when it names none), as
   * an anonymous caller.
   *
   * @param request the client and the resources it gives back
   * @throws StatusException NOT_FOUND for an unknown resource, UNAVAILABLE where this service does
   *     not lead
   * @throws IllegalArgumentException naming the value, if the request is out of bounds ({@link
   *     QuotaMessages#check(ReleaseCapacityRequest)}; over gRPC such a request is INVALID_ARGUMENT)
   */
  public void releaseCapacity(ReleaseCapacityRequest request) throws StatusException {
    releaseCapacity(QuotaCaller.ANONYMOUS, QuotaMessages.check(request));
  }

  /** {@code request} was checked by its receiver. */
  void releaseCapacity(QuotaCaller caller, ReleaseCapacityRequest request) throws StatusException {
    long now = clock.nanoTime();
    List<ResourceState> states = new ArrayList<>();
    if (request.getResourceIdCount() == 0) {
      for (Resource r : resources.values()) {
        ResourceState state = r.state();
        if (state != null) {
          states.add(state);
        }
      }
    } else {
      for (String id : request.getResourceIdList()) {
        states.add(led(id, now));
      }
    }
    states.forEach(state -> state.release(caller, request.getClientId(), now));
  }

  /**
   * The configured resources' names.
   *
   * @return the names
   */
  public Set<String> resourceNames() {
    return resources.keySet();
  }

  /**
   * A configured resource's terms.
   *
   * @param resource a configured resource's name
   * @return its capacity, safe capacity, lease length, refresh interval and client bound
   * @throws IllegalArgumentException if no resource has that name
   */
  public ResourceConfig config(String resource) {
    return require(resource).config;
  }

  /**
   * The sum of the leases of a resource outstanding now.
   *
   * @param resource the resource's name
   * @return the sum, per second; 0 where this service does not lead the resource
   * @throws IllegalArgumentException for a resource this service does not have
   */
  public double granted(String resource) {
    ResourceState state = require(resource).state();
    return state == null ? 0 : state.granted(clock.nanoTime());
  }

  /**
   * The clients holding a lease of a resource now.
   *
   * @param resource the resource's name
   * @return the count; 0 where this service does not lead the resource
   * @throws IllegalArgumentException for a resource this service does not have
   */
  public int clients(String resource) {
    ResourceState state = require(resource).state();
    return state == null ? 0 : state.clients(clock.nanoTime());
  }

  /**
   * Whether a resource is still in its learning period.
   *
   * @param resource the resource's name
   * @return true while learning; false where this service does not lead the resource
   * @throws IllegalArgumentException for a resource this service does not have
   */
  public boolean learning(String resource) {
    ResourceState state = require(resource).state();
    return state != null && state.learning(clock.nanoTime());
  }

  /**
   * Requests and releases refused because another open connection holds the client id's lease:
   * two processes sharing one client id. Each such client id is also logged, at WARNING, at most
   * once a lease length.
   *
   * @return the count
   */
  public long duplicateClientIds() {
    return duplicates.sum();
  }

  /**
   * New clients refused because their resource already had {@link ResourceConfig#maxClients()}.
   *
   * @return the count
   */
  public long clientsRefused() {
    return refused.sum();
  }

  private Resource require(String resource) {
    Resource r = resources.get(resource);
    if (r == null) {
      throw new IllegalArgumentException("resource: " + Ranges.quote(resource) + " (expected: one of " + Ranges.quoteList(resources.keySet()) + ")");
    }
    return r;
  }

  /**
   * The ledger of a resource this service leads, its leadership confirmed at {@code nowNanos}; else
   * NOT_FOUND, or UNAVAILABLE naming the leader if one is known.
   */
  private ResourceState led(String id, long nowNanos) throws StatusException {
    Resource r = resources.get(id);
    if (r == null) {
      throw Status.NOT_FOUND
          .withDescription("ballast quota: resource_id: " + Ranges.quote(id) + " (expected: one of " + Ranges.quoteList(resources.keySet()) + ")")
          .asException();
    }
    Led led = r.led;
    if (led != null) {
      if (led.leadership().confirmedAt(nowNanos)) {
        return led.state();
      }
      throw unconfirmed(id, led.leadership(), nowNanos);
    }
    String leader = r.leader;
    Metadata trailers = new Metadata();
    if (leader == null) {
      throw Status.UNAVAILABLE.withDescription("ballast quota: resource_id: '" + id
          + "' has no leader yet (expected: a retry once a replica leads it)").asException(trailers);
    }
    trailers.put(LEADER, leader);
    throw Status.UNAVAILABLE.withDescription("ballast quota: resource_id: '" + id + "' is led by " + leader
        + ", not by this replica (expected: the leader, named in the trailer " + LEADER_TRAILER + ")").asException(trailers);
  }

  /** UNAVAILABLE for a resource this replica leads but cannot vouch for now, as a follower's answer would be. */
  private static StatusException unconfirmed(String id, Leadership leadership, long nowNanos) {
    String why = leadership.unconfirmed(nowNanos);
    String other = leadership.otherLeader();
    Metadata trailers = new Metadata();
    if (other != null) {
      trailers.put(LEADER, other);
    }
    return Status.UNAVAILABLE.withDescription("ballast quota: resource_id: " + Ranges.quote(id)
        + " is not granted by this replica until it confirms that it still leads it (" + why + "; expected: a retry, "
        + (other != null ? "at the leader named in the trailer " + LEADER_TRAILER : "at another replica") + ")")
        .asException(trailers);
  }

  /**
   * The generated service's methods, with the request left as bytes: the service reads and checks
   * each request itself ({@link QuotaMessages}), so that a malformed one is answered
   * INVALID_ARGUMENT with the reason (a marshaller that throws leaves the answer to the transport).
   * The descriptor keeps the proto's schema, for server reflection.
   */
  private static final MethodDescriptor<byte[], GetCapacityResponse> GET_CAPACITY =
      rawRequest(QuotaGrpc.getGetCapacityMethod());
  private static final MethodDescriptor<byte[], ReleaseCapacityResponse> RELEASE_CAPACITY =
      rawRequest(QuotaGrpc.getReleaseCapacityMethod());

  private static <ReqT, RespT> MethodDescriptor<byte[], RespT> rawRequest(MethodDescriptor<ReqT, RespT> method) {
    return method.toBuilder(new RawBytes(), method.getResponseMarshaller()).build();
  }

  /** A request's bytes as they arrived. */
  private static final class RawBytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  public ServerServiceDefinition bindService() {
    ServiceDescriptor descriptor = ServiceDescriptor.newBuilder(QuotaGrpc.SERVICE_NAME)
        .setSchemaDescriptor(QuotaGrpc.getServiceDescriptor().getSchemaDescriptor())
        .addMethod(GET_CAPACITY)
        .addMethod(RELEASE_CAPACITY)
        .build();
    return ServerInterceptors.intercept(ServerServiceDefinition.builder(descriptor)
        .addMethod(GET_CAPACITY,
            ServerCalls.asyncUnaryCall(handler("GetCapacityRequest", QuotaMessages::parseGetCapacityRequest,
                request -> getCapacity(QuotaCaller.current(), request))))
        .addMethod(RELEASE_CAPACITY,
            ServerCalls.asyncUnaryCall(handler("ReleaseCapacityRequest", QuotaMessages::parseReleaseCapacityRequest, request -> {
              releaseCapacity(QuotaCaller.current(), request);
              return ReleaseCapacityResponse.getDefaultInstance();
            })))
        .build(), QuotaCaller.interceptor());
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
