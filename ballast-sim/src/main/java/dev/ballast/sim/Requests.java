package dev.ballast.sim;

import dev.ballast.pick.Pick;
import java.util.Arrays;

/**
 * The requests in flight, by request id; ids are recycled from a free list, so a simulated
 * request allocates nothing once the id space has grown. Each attempt of a
 * request (a retry included) has its own id, so that an event left over from an earlier attempt
 * never meets a later one.
 */
final class Requests {
  // Outcomes, decided at the backend.
  static final byte PENDING = 0;
  static final byte OK = 1;
  /** The backend answered with an application error. */
  static final byte ERROR = 2;
  /** The connection failed: the backend is down. */
  static final byte NETWORK_ERROR = 3;
  /** The backend answered "unavailable": an error a client retries elsewhere. */
  static final byte UNAVAILABLE = 4;
  /** The backend's limiter shed it. */
  static final byte OVERLOADED = 5;
  /** The backend did not start it: its deadline had passed. */
  static final byte EXPIRED = 6;

  private Attempt[] attempts = new Attempt[0];
  private int[] free = new int[1024];
  private int freeCount;
  private int allocated;

  /**
   * One attempt's state. An object per id rather than an array per field: an event reads and
   * writes a dozen of these fields, which in parallel arrays were a dozen cache lines; here they
   * are two. Attempts are made when the id space grows and reused with their ids.
   */
  static final class Attempt {
    /** When this attempt was sent. */
    long start;
    /** When the first attempt was sent: the request's own start. */
    long firstStart;
    /** When the caller gives up (absolute). */
    long deadline;
    long cost;
    /** When this attempt reached its backend. */
    long arrived;
    /** When the backend started running it. */
    long serviceStart;
    /** Its service time, shed costs it pays for included. */
    long serviceNanos;
    int backend;
    int client;
    /** The request's key ({@code cache.keys}), or -1 when requests carry none. */
    int key;
    /** The backend's requests in flight when it arrived (its probe responder's load bucket). */
    int loadAtArrival;
    int epoch;
    byte outcome;
    /** Scheduled events that refer to it. */
    byte refs;
    byte criticality;
    byte attempt;
    boolean answered;
    /** Whether the backend's limiter counts it in flight. */
    boolean admitted;
    Pick pick;
  }

  /** Attempt {@code r}'s state. */
  Attempt at(int r) {
    return attempts[r];
  }

  int allocate() {
    int r;
    if (freeCount > 0) {
      r = free[--freeCount];
    } else {
      if (allocated == attempts.length) {
        grow(Math.max(1024, allocated * 2));
      }
      r = allocated++;
    }
    Attempt a = attempts[r];
    a.outcome = PENDING;
    a.answered = false;
    a.admitted = false;
    a.refs = 0;
    return r;
  }

  private void grow(int capacity) {
    int from = attempts.length;
    attempts = Arrays.copyOf(attempts, capacity);
    for (int r = from; r < capacity; r++) {
      attempts[r] = new Attempt();
    }
    free = Arrays.copyOf(free, capacity);
  }

  /** Ids ever handed out: every id below is in use or free. */
  int allocated() {
    return allocated;
  }

  /** An id is reused only once no scheduled event refers to it, so a stale event never meets a new request. */
  void release(int r) {
    Attempt a = attempts[r];
    if (a.refs == 0 && a.answered) {
      a.pick = null;
      free[freeCount++] = r;
    }
  }
}
