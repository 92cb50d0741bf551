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
    /** The hedged call this attempt belongs to, or -1 (hedging off, or a retry). */
    int call = -1;
    /** The client cancelled it (another attempt of its call answered first): when the cancel reaches its backend. */
    long cancelAt = Long.MAX_VALUE;
  }

  /**
   * One hedged request: its attempts out at once, and whether it has its answer. Only scenarios
   * with hedging make calls; the others pay nothing for them.
   */
  static final class Call {
    /** The attempts still out (not answered, not cancelled), by id; the first {@link #live} count. */
    final int[] live = new int[8];
    /** Their backends' keys, in the same order, for the next hedge's pick to avoid. */
    final String[] keys = new String[8];
    int liveCount;
    /** Attempts sent so far, the first included. */
    int sent;
    /** The id of the first attempt while it is out, else -1. */
    int first;
    /** Whether an attempt was answered "overloaded". */
    boolean overloaded;
    /** Whether the request has its outcome (an answer won, it failed, or it was handed to a retry). */
    boolean decided;
    /** Scheduled hedge events that refer to it. */
    int refs;

    void add(int r, String key) {
      live[liveCount] = r;
      keys[liveCount] = key;
      liveCount++;
    }

    void remove(int r) {
      for (int i = 0; i < liveCount; i++) {
        if (live[i] == r) {
          liveCount--;
          live[i] = live[liveCount];
          keys[i] = keys[liveCount];
          return;
        }
      }
    }
  }

  private Call[] calls = new Call[0];
  private int[] freeCalls = new int[64];
  private int freeCallCount;
  private int allocatedCalls;

  /** A new call, with nothing out yet. */
  int allocateCall() {
    int k;
    if (freeCallCount > 0) {
      k = freeCalls[--freeCallCount];
    } else {
      if (allocatedCalls == calls.length) {
        int from = calls.length;
        calls = Arrays.copyOf(calls, Math.max(64, allocatedCalls * 2));
        for (int i = from; i < calls.length; i++) {
          calls[i] = new Call();
        }
        freeCalls = Arrays.copyOf(freeCalls, calls.length);
      }
      k = allocatedCalls++;
    }
    Call call = calls[k];
    call.liveCount = 0;
    call.sent = 0;
    call.first = -1;
    call.overloaded = false;
    call.decided = false;
    call.refs = 0;
    return k;
  }

  Call call(int k) {
    return calls[k];
  }

  /** A call is reused once it has its outcome, nothing of it is out, and no event refers to it. */
  void releaseCall(int k) {
    Call call = calls[k];
    if (call.decided && call.liveCount == 0 && call.refs == 0) {
      call.refs = -1; // released: not again
      freeCalls[freeCallCount++] = k;
    }
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
    a.call = -1;
    a.cancelAt = Long.MAX_VALUE;
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
