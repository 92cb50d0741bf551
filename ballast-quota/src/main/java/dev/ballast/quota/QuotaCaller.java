package dev.ballast.quota;

import dev.ballast.identity.CertificateIdentity;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who sent a request to the quota service: the connection it came on (to tell two processes that
 * share a client id apart) and the identity its TLS client certificate proves, if any (to keep
 * each caller to its own leases).
 *
 * @param connection null when the server was built without {@link #connections()} (or the call
 *     did not come over a transport)
 * @param identity null without a verified client certificate
 */
record QuotaCaller(Connection connection, String identity) {
  /** A caller known by nothing: a direct call to the service's methods. */
  static final QuotaCaller ANONYMOUS = new QuotaCaller(null, null);

  private static final Attributes.Key<Connection> CONNECTION = Attributes.Key.create("ballast-quota-connection");
  private static final Context.Key<QuotaCaller> CURRENT = Context.key("ballast-quota-caller");

  /** The caller of the request being handled, or {@link #ANONYMOUS}. */
  static QuotaCaller current() {
    QuotaCaller caller = CURRENT.get();
    return caller == null ? ANONYMOUS : caller;
  }

  /** One transport (a TCP connection, an in-process channel's transport) and whether it is still open. */
  static final class Connection {
    private static final AtomicLong NEXT_ID = new AtomicLong();

    private final long id = NEXT_ID.incrementAndGet();
    private final String remote;
    private volatile boolean open = true;

    Connection(SocketAddress remote) {
      this.remote = remote == null ? "an unknown peer" : remote.toString();
    }

    boolean isOpen() {
      return open;
    }

    void closed() {
      open = false;
    }

    @Override
    public String toString() {
      return "connection " + id + " from " + remote;
    }
  }

  /** Marks each transport with a {@link Connection} when it is ready, and the connection closed when it ends. */
  static ServerTransportFilter connections() {
    return new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attributes) {
        return attributes.toBuilder()
            .set(CONNECTION, new Connection(attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)))
            .build();
      }

      @Override
      public void transportTerminated(Attributes attributes) {
        Connection connection = attributes == null ? null : attributes.get(CONNECTION);
        if (connection != null) {
          connection.closed();
        }
      }
    };
  }

  /** Puts each call's caller in its context, where the service's handlers find it. */
  static ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        Attributes attributes = call.getAttributes();
        QuotaCaller caller = new QuotaCaller(
            attributes.get(CONNECTION), CertificateIdentity.of(attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)));
        return Contexts.interceptCall(Context.current().withValue(CURRENT, caller), call, headers, next);
      }
    };
  }
}
