package dev.ballast.grpc;

import dev.ballast.identity.CertificateIdentity;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * Who is calling, for a server's per-caller rate limit ({@link
 * BallastServer.Builder#callerRateLimit}): a string per call, the same for every call of one
 * caller. A call whose caller cannot be told returns {@code null} and shares one bucket with the
 * other such calls.
 */
@FunctionalInterface
public interface CallerKey {

  /**
   * The caller of one call.
   *
   * @param call the call, with its transport attributes
   * @param headers the call's request headers
   * @return the caller's key, or null when the caller cannot be told
   */
  String of(ServerCall<?, ?> call, Metadata headers);

  /**
   * The value of the request header {@code name}, such as a client's job name the clients set.
   * A caller can write any value there: behind mutual TLS prefer {@link #certificate()}.
   *
   * @param name the header's name, in ASCII
   * @return the key
   */
  static CallerKey header(String name) {
    Metadata.Key<String> key = Metadata.Key.of(Objects.requireNonNull(name, "name"), Metadata.ASCII_STRING_MARSHALLER);
    return (call, headers) -> headers.get(key);
  }

  /**
   * The identity the caller's TLS client certificate proves ({@link CertificateIdentity}: its
   * URI name, such as a SPIFFE ID, else its DNS name, else its subject's CN): with mutual TLS, the
   * one key a caller cannot change by writing another header. Null (the shared bucket) without a
   * verified client certificate.
   *
   * @return the key
   */
  static CallerKey certificate() {
    return (call, headers) -> CertificateIdentity.of(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
  }

  /**
   * The caller that fair admission shares a server's limit by, unless told otherwise: the identity
   * the TLS client certificate proves; without one, the request header {@code name}, but only
   * where {@code trust} believes every caller's headers ({@link CriticalityTrust#all()}), since a
   * server that trusts only certain certificates cannot tell who wrote the header; else null, the
   * one unknown caller that the calls whose caller cannot be told share.
   *
   * @param name the header's name, in ASCII, such as {@value BallastCalls#CALLER_HEADER_NAME}
   * @param trust the server's policy of whose headers to believe
   * @return the key
   */
  @dev.ballast.annotation.Experimental("new: how fair admission tells callers apart")
  static CallerKey certificateOrHeader(String name, CriticalityTrust trust) {
    Objects.requireNonNull(trust, "trust");
    CallerKey header = header(name);
    return (call, headers) -> {
      String identity = CertificateIdentity.of(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
      if (identity != null) {
        return identity;
      }
      return trust.trustsAll() ? header.of(call, headers) : null;
    };
  }

  /**
   * The peer's IP address, without the port: one caller per host.
   *
   * @return the key
   */
  static CallerKey remoteHost() {
    return (call, headers) -> {
      SocketAddress address = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      if (address instanceof InetSocketAddress inet) {
        return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
      }
      return address == null ? null : address.toString();
    };
  }
}
