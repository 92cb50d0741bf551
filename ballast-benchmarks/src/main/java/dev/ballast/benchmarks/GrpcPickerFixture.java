package dev.ballast.benchmarks;

import dev.ballast.grpc.orca.v3.OrcaLoadReport;
import dev.ballast.testing.FakeClock;
import dev.ballast.testing.FakeScheduler;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ChannelLogger;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import java.io.InputStream;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * gRPC-Java's own load-balancing policies, obtained through its public registry and driven by a
 * stub {@link LoadBalancer.Helper} whose subchannels are in memory: no sockets, so a benchmark
 * measures the picker alone. The subchannels turn READY as soon as the policy asks them to
 * connect. Load reports reach policies the way they do in production: as ORCA
 * {@code endpoint-load-metrics-bin} trailers seen by the stream tracer the picker attached.
 */
final class GrpcPickerFixture implements AutoCloseable {
  static final Metadata.Key<byte[]> ORCA_TRAILER =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final StubHelper helper = new StubHelper();
  private final LoadBalancer balancer;
  private final int backends;
  static final LoadBalancer.PickSubchannelArgs ARGS = new StaticPickArgs();

  private GrpcPickerFixture(String policy, Map<String, ?> config, int backends) {
    this.backends = backends;
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider(policy);
    if (provider == null) {
      throw new IllegalStateException("gRPC policy " + policy + " is not registered");
    }
    NameResolver.ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(config);
    if (parsed.getError() != null) {
      throw new IllegalArgumentException("config for " + policy + ": " + parsed.getError());
    }
    List<EquivalentAddressGroup> groups = new ArrayList<>(backends);
    for (int i = 0; i < backends; i++) {
      groups.add(new EquivalentAddressGroup(new BackendAddress(i)));
    }
    this.balancer = provider.newLoadBalancer(helper);
    LoadBalancer.ResolvedAddresses addresses =
        LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(groups)
            .setLoadBalancingPolicyConfig(parsed.getConfig())
            .build();
    helper.sync.execute(() -> balancer.acceptResolvedAddresses(addresses));
    if (helper.state != ConnectivityState.READY) {
      // Policies that connect on a pick's demand (ring_hash) start IDLE: connect every backend.
      for (InMemorySubchannel subchannel : List.copyOf(helper.subchannels)) {
        subchannel.requestConnection();
      }
    }
    // ring_hash creates a backend's subchannel only when a pick lands on it while it is idle (its
    // children connect on demand): pick (a call without a hash gets a random one) and connect
    // what the picks created, until every backend has a READY subchannel.
    for (int round = 0; round < 1_000 && helper.subchannels.size() < backends; round++) {
      for (int i = 0; i < backends; i++) {
        LoadBalancer.SubchannelPicker current = helper.picker;
        if (current != null) {
          current.pickSubchannel(ARGS);
        }
      }
      for (InMemorySubchannel subchannel : List.copyOf(helper.subchannels)) {
        subchannel.requestConnection();
      }
    }
    if (helper.state != ConnectivityState.READY) {
      throw new IllegalStateException(policy + " did not become READY: " + helper.state);
    }
  }

  /** gRPC's policy {@code policy} (a registry name) over {@code backends} READY backends. */
  static GrpcPickerFixture create(String policy, Map<String, ?> config, int backends) {
    return new GrpcPickerFixture(policy, config, backends);
  }

  LoadBalancer.SubchannelPicker picker() {
    return helper.picker;
  }

  /** The backend index a pick chose. */
  static int backendOf(LoadBalancer.PickResult result) {
    return ((BackendAddress) result.getSubchannel().getAddresses().getAddresses().get(0)).index;
  }

  /**
   * What a finished RPC does to the policy's accounting: the stream tracer the picker attached (if
   * any) sees the stream created and closed, with {@code trailers} as the server's trailers.
   */
  static void completeCall(LoadBalancer.PickResult result, Metadata trailers) {
    ClientStreamTracer tracer = startCall(result);
    if (tracer == null) {
      return;
    }
    if (trailers != null) {
      tracer.inboundTrailers(trailers);
    }
    tracer.streamClosed(Status.OK);
  }

  /**
   * What a started RPC does to the policy's accounting: the stream tracer the picker attached (if
   * any) sees the stream created. The call stays open; null if the picker attached no tracer.
   */
  static ClientStreamTracer startCall(LoadBalancer.PickResult result) {
    ClientStreamTracer.Factory factory = result.getStreamTracerFactory();
    if (factory == null) {
      return null;
    }
    Metadata headers = new Metadata();
    ClientStreamTracer tracer =
        factory.newClientStreamTracer(ClientStreamTracer.StreamInfo.newBuilder().build(), headers);
    tracer.streamCreated(Attributes.EMPTY, headers);
    return tracer;
  }

  /**
   * Sends each backend's load report through picks until every backend has reported {@code rounds}
   * times, then runs the policy's pending timer tasks: gRPC's weighted round robin recomputes
   * weights on a timer and swaps them into the picker it already published.
   */
  void reportLoads(double[] qps, double[] eps, double[] utilization, int rounds) {
    int[] reported = new int[backends];
    int remaining = backends;
    Metadata[] trailers = new Metadata[backends];
    for (int i = 0; i < backends; i++) {
      trailers[i] = new Metadata();
      trailers[i].put(ORCA_TRAILER, orcaLoadReport(utilization[i], qps[i], eps[i]));
    }
    for (long picks = 0; remaining > 0; picks++) {
      if (picks > 1000L * backends * rounds) {
        throw new IllegalStateException("some backend was never picked");
      }
      LoadBalancer.PickResult result = picker().pickSubchannel(ARGS);
      int b = backendOf(result);
      completeCall(result, trailers[b]);
      if (++reported[b] == rounds) {
        remaining--;
      }
    }
    if (helper.timer.runScheduled() == 0) {
      throw new IllegalStateException("the policy scheduled no weight update");
    }
  }

  /** A serialized ORCA {@code OrcaLoadReport} with cpu_utilization, rps_fractional and eps. */
  static byte[] orcaLoadReport(double cpuUtilization, double rpsFractional, double eps) {
    return OrcaLoadReport.newBuilder()
        .setCpuUtilization(cpuUtilization)
        .setRpsFractional(rpsFractional)
        .setEps(eps)
        .build()
        .toByteArray();
  }

  @Override
  public void close() {
    helper.sync.execute(balancer::shutdown);
    helper.timer.shutdown();
  }

  /** A backend identified by its index; never dialled. */
  static final class BackendAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;
    final int index;

    BackendAddress(int index) {
      this.index = index;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BackendAddress other && other.index == index;
    }

    @Override
    public int hashCode() {
      return index;
    }

    @Override
    public String toString() {
      return "backend-" + index;
    }
  }

  private static final class StubHelper extends LoadBalancer.Helper {
    final SynchronizationContext sync =
        new SynchronizationContext((thread, e) -> {
          throw new IllegalStateException("uncaught in gRPC's synchronization context", e);
        });
    final FakeScheduler timer = new FakeScheduler(new FakeClock());
    volatile LoadBalancer.SubchannelPicker picker;
    volatile ConnectivityState state;
    final List<InMemorySubchannel> subchannels = new ArrayList<>();

    @Override
    public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      InMemorySubchannel subchannel = new InMemorySubchannel(args, sync);
      subchannels.add(subchannel);
      return subchannel;
    }

    @Override
    public void updateBalancingState(ConnectivityState newState, LoadBalancer.SubchannelPicker newPicker) {
      state = newState;
      picker = newPicker;
    }

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return sync;
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return timer;
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return QuietLogger.INSTANCE;
    }

    @Override
    public String getAuthority() {
      return "benchmark.invalid";
    }

    @Override
    public String getChannelTarget() {
      return "benchmark.invalid";
    }

    @Override
    public io.grpc.ManagedChannel createOobChannel(EquivalentAddressGroup eag, String authority) {
      throw new UnsupportedOperationException("no out-of-band channels in the fixture");
    }
  }

  private static final class InMemorySubchannel extends LoadBalancer.Subchannel {
    private final LoadBalancer.CreateSubchannelArgs args;
    private final SynchronizationContext sync;
    private LoadBalancer.SubchannelStateListener listener;
    private boolean ready;

    InMemorySubchannel(LoadBalancer.CreateSubchannelArgs args, SynchronizationContext sync) {
      this.args = args;
      this.sync = sync;
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener listener) {
      this.listener = listener;
    }

    @Override
    public void requestConnection() {
      if (ready || listener == null) {
        return;
      }
      ready = true;
      sync.execute(() -> listener.onSubchannelState(ConnectivityStateInfo.forNonError(ConnectivityState.READY)));
    }

    @Override
    public void shutdown() {}

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return args.getAddresses();
    }

    @Override
    public Attributes getAttributes() {
      return args.getAttributes();
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return QuietLogger.INSTANCE;
    }
  }

  private static final class QuietLogger extends ChannelLogger {
    static final QuietLogger INSTANCE = new QuietLogger();

    @Override
    public void log(ChannelLogLevel level, String message) {}

    @Override
    public void log(ChannelLogLevel level, String messageFormat, Object... args) {}
  }

  /** A call whose header {@code header} carries {@code value}: a keyed pick's arguments, made once. */
  static LoadBalancer.PickSubchannelArgs withHeader(Metadata.Key<String> header, String value) {
    StaticPickArgs args = new StaticPickArgs();
    args.headers.put(header, value);
    return args;
  }

  /** The same call for every pick: the pickers under test do not look at it. */
  private static final class StaticPickArgs extends LoadBalancer.PickSubchannelArgs {
    private static final MethodDescriptor<Void, Void> METHOD =
        MethodDescriptor.<Void, Void>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("benchmark.Service/Call")
            .setRequestMarshaller(VoidMarshaller.INSTANCE)
            .setResponseMarshaller(VoidMarshaller.INSTANCE)
            .build();
    private final Metadata headers = new Metadata();

    @Override
    public CallOptions getCallOptions() {
      return CallOptions.DEFAULT;
    }

    @Override
    public Metadata getHeaders() {
      return headers;
    }

    @Override
    public MethodDescriptor<?, ?> getMethodDescriptor() {
      return METHOD;
    }
  }

  private enum VoidMarshaller implements MethodDescriptor.Marshaller<Void> {
    INSTANCE;

    @Override
    public InputStream stream(Void value) {
      return InputStream.nullInputStream();
    }

    @Override
    public Void parse(InputStream stream) {
      return null;
    }
  }
}
