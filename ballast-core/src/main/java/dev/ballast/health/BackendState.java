package dev.ballast.health;

/**
 * A backend's state as one client sees it (the chapter's "Identifying Bad Tasks", plus the idle
 * mode of inactive connections). Only {@link #HEALTHY} and {@link #IDLE} backends get new
 * requests; requests already in flight to a backend in any state complete normally.
 */
public enum BackendState {
  /** The connection is being established; no requests yet. */
  CONNECTING(false),
  /** The backend does not accept connections (starting, shutting down or broken). */
  REFUSING(false),
  /** Connected and serving. */
  HEALTHY(true),
  /**
   * Connected and serving, but without recent traffic: the transport keeps the connection cheap
   * and health-checks it at the lower idle rate. The next request makes it {@link #HEALTHY}.
   */
  IDLE(true),
  /** Listening and able to serve, but asking clients to send new requests elsewhere. */
  LAME_DUCK(false);

  private final boolean acceptsNewRequests;

  BackendState(boolean acceptsNewRequests) {
    this.acceptsNewRequests = acceptsNewRequests;
  }

  /**
   * Whether a backend in this state may be picked for a new request.
   *
   * @return true for the states that take new requests
   */
  public boolean acceptsNewRequests() {
    return acceptsNewRequests;
  }
}
