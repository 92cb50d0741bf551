package dev.ballast.http;

import dev.ballast.annotation.Experimental;
import java.net.URI;
import java.util.Objects;

/**
 * One backend of a service as a resolver names it: its key (the name subsetting and the balancer
 * know it by), the base URI requests to it are resolved against, and its zone.
 *
 * @param key the backend's stable name, such as its {@code host:port}
 * @param baseUri where requests go: scheme, host and port, and a path prefix if any
 * @param zone the backend's zone, or null when unknown
 */
@Experimental
public record HttpEndpoint(String key, URI baseUri, String zone) {

  /**
   * Validates the endpoint.
   *
   * @param key the backend's stable name
   * @param baseUri where requests go
   * @param zone the backend's zone, or null
   * @throws IllegalArgumentException for an empty key, a URI that is not absolute http or https
   *     with a host, or an empty zone
   */
  public HttpEndpoint {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(baseUri, "baseUri");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key: \"\" (expected: a backend's name)");
    }
    String scheme = baseUri.getScheme();
    if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || baseUri.getHost() == null) {
      throw new IllegalArgumentException("baseUri: " + baseUri + " (expected: an http or https URI with a host)");
    }
    if (baseUri.getRawQuery() != null || baseUri.getRawFragment() != null) {
      throw new IllegalArgumentException("baseUri: " + baseUri + " (expected: no query or fragment)");
    }
    if (zone != null && zone.isEmpty()) {
      throw new IllegalArgumentException("zone: \"\" (expected: a zone name, or null)");
    }
  }

  /**
   * An endpoint keyed by its URI's {@code host:port} (the scheme's default port when it has none),
   * without a zone.
   *
   * @param baseUri the backend's base URI
   * @return the endpoint
   */
  public static HttpEndpoint of(URI baseUri) {
    return of(baseUri, null);
  }

  /**
   * An endpoint keyed by its URI's {@code host:port}, in a zone.
   *
   * @param baseUri the backend's base URI
   * @param zone its zone, or null
   * @return the endpoint
   */
  public static HttpEndpoint of(URI baseUri, String zone) {
    Objects.requireNonNull(baseUri, "baseUri");
    int port = baseUri.getPort();
    if (port < 0) {
      port = "https".equalsIgnoreCase(baseUri.getScheme()) ? 443 : 80;
    }
    String host = baseUri.getHost();
    return new HttpEndpoint(host + ":" + port, baseUri, zone);
  }

  /**
   * Where a request goes on this backend: the request's path and query after the base URI's path
   * (a base {@code http://10.0.0.7:8080/api} and a request {@code /users?id=1} give {@code
   * http://10.0.0.7:8080/api/users?id=1}). The request's own scheme and authority are ignored.
   *
   * @param request the request's URI, absolute or just a path
   * @return the URI on this backend
   */
  public URI resolve(URI request) {
    String base = baseUri.toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    String path = request.getRawPath();
    if (path == null || path.isEmpty()) {
      path = "/";
    } else if (!path.startsWith("/")) {
      path = "/" + path;
    }
    String query = request.getRawQuery();
    return URI.create(base + path + (query == null ? "" : "?" + query));
  }
}
