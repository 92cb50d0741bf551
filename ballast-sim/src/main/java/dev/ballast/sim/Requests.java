package dev.ballast.sim;

import dev.ballast.pick.Pick;
import java.util.Arrays;

/**
 * The requests in flight, as primitive arrays indexed by request id; ids are recycled from a free
 * list, so a simulated request allocates nothing once the arrays have grown. Each attempt of a
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

  int[] backend = new int[1024];
  int[] client = new int[1024];
  /** When this attempt was sent. */
  long[] start = new long[1024];
  /** When the first attempt was sent: the request's own start. */
  long[] firstStart = new long[1024];
  /** When the caller gives up (absolute). */
  long[] deadline = new long[1024];
  long[] cost = new long[1024];
  /** When this attempt reached its backend. */
  long[] arrived = new long[1024];
  /** When the backend started running it. */
  long[] serviceStart = new long[1024];
  /** Its service time, shed costs it pays for included. */
  long[] serviceNanos = new long[1024];
  int[] slot = new int[1024];
  /** The backend's requests in flight when it arrived (its probe responder's load bucket). */
  int[] loadAtArrival = new int[1024];
  int[] epoch = new int[1024];
  byte[] outcome = new byte[1024];
  byte[] refs = new byte[1024];
  byte[] criticality = new byte[1024];
  byte[] attempt = new byte[1024];
  boolean[] answered = new boolean[1024];
  /** Whether the backend's limiter counts it in flight. */
  boolean[] admitted = new boolean[1024];
  Pick[] pick = new Pick[1024];
  private int[] free = new int[1024];
  private int freeCount;
  private int allocated;

  int allocate() {
    int r;
    if (freeCount > 0) {
      r = free[--freeCount];
    } else {
      if (allocated == backend.length) {
        grow(allocated * 2);
      }
      r = allocated++;
    }
    outcome[r] = PENDING;
    answered[r] = false;
    admitted[r] = false;
    refs[r] = 0;
    return r;
  }

  private void grow(int capacity) {
    backend = Arrays.copyOf(backend, capacity);
    client = Arrays.copyOf(client, capacity);
    start = Arrays.copyOf(start, capacity);
    firstStart = Arrays.copyOf(firstStart, capacity);
    deadline = Arrays.copyOf(deadline, capacity);
    cost = Arrays.copyOf(cost, capacity);
    arrived = Arrays.copyOf(arrived, capacity);
    serviceStart = Arrays.copyOf(serviceStart, capacity);
    serviceNanos = Arrays.copyOf(serviceNanos, capacity);
    slot = Arrays.copyOf(slot, capacity);
    loadAtArrival = Arrays.copyOf(loadAtArrival, capacity);
    epoch = Arrays.copyOf(epoch, capacity);
    outcome = Arrays.copyOf(outcome, capacity);
    refs = Arrays.copyOf(refs, capacity);
    criticality = Arrays.copyOf(criticality, capacity);
    attempt = Arrays.copyOf(attempt, capacity);
    answered = Arrays.copyOf(answered, capacity);
    admitted = Arrays.copyOf(admitted, capacity);
    pick = Arrays.copyOf(pick, capacity);
    free = Arrays.copyOf(free, capacity);
  }

  /** Ids ever handed out: every id below is in use or free. */
  int allocated() {
    return allocated;
  }

  /** An id is reused only once no scheduled event refers to it, so a stale event never meets a new request. */
  void release(int r) {
    if (refs[r] == 0 && answered[r]) {
      pick[r] = null;
      free[freeCount++] = r;
    }
  }
}
