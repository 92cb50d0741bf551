package dev.ballast.sim;

/**
 * The datacenter network between clients and backends: every message takes half a round trip,
 * and messages between the same two ends stay in order (requests, answers, the lame-duck signal).
 */
final class Network {
  private final EventQueue events;
  private final Requests requests;
  private final long halfRtt;
  private final long rtt;

  Network(EventQueue events, Requests requests, long rttNanos) {
    this.events = events;
    this.requests = requests;
    this.halfRtt = rttNanos / 2;
    this.rtt = rttNanos;
  }

  /** Request {@code r} leaves its client now and reaches its backend half a round trip later. */
  void toBackend(int r, long now) {
    requests.at(r).refs++;
    events.scheduleInOrder(now + halfRtt, Simulation.AT_BACKEND, r);
  }

  /** The backend answers request {@code r} (its outcome is set); the answer reaches the client half a round trip later. */
  void toClient(int r, long now) {
    requests.at(r).refs++;
    events.scheduleInOrder(now + halfRtt, Simulation.RESPONSE, r);
  }

  /** A backend's news (down, lame duck) reaches its clients: after half a round trip. */
  long signalDelay() {
    return halfRtt;
  }

  /** A new connection, or the lame-duck signal ("typically in 1 or 2 RTT"), takes a round trip. */
  long roundTrip() {
    return rtt;
  }
}
