package dev.ballast.sim;

import java.util.Arrays;

/**
 * The simulator's future event list: a binary min-heap over primitive arrays, so that scheduling
 * and taking an event allocate nothing once the arrays have grown. An event is a time, a type and
 * one int argument. Events at the same time come out in the order they were scheduled (a sequence
 * number breaks ties), which makes a run a pure function of its seed.
 *
 * <p>Events scheduled a constant delay ahead (the network's one-way trip) are scheduled in time
 * order, so they skip the heap: they wait in a FIFO ring that {@link #poll()} merges with the heap
 * by (time, sequence). That halves the heap work per simulated request.
 */
final class EventQueue {
  // The heap, one event per three consecutive longs (time, sequence, payload), so that comparing
  // a parent with its child touches one cache line instead of three arrays.
  private long[] heap;
  private int size;
  private long nextSequence;

  private long[] fifoTimes;
  private long[] fifoSequences;
  private long[] fifoPayloads;
  private int fifoHead;
  private int fifoSize;

  // The event last taken by poll(), read through the accessors below.
  private long time;
  private int type;
  private int argument;

  EventQueue(int initialCapacity) {
    // A power of two, so that the FIFO ring can wrap with a mask.
    int capacity = Integer.highestOneBit(Math.max(16, initialCapacity) - 1) << 1;
    heap = new long[3 * capacity];
    fifoTimes = new long[capacity];
    fifoSequences = new long[capacity];
    fifoPayloads = new long[capacity];
  }

  int size() {
    return size + fifoSize;
  }

  boolean isEmpty() {
    return size + fifoSize == 0;
  }

  /**
   * Schedules an event no earlier than any event scheduled this way before it, e.g. one a constant
   * delay after the current time.
   *
   * @throws IllegalArgumentException if {@code at} is before the last such event
   */
  void scheduleInOrder(long at, int eventType, int eventArgument) {
    int capacity = fifoTimes.length;
    if (fifoSize > 0 && at < fifoTimes[(fifoHead + fifoSize - 1) & (capacity - 1)]) {
      throw new IllegalArgumentException("at: " + at + " (expected: no earlier than the last in-order event)");
    }
    if (fifoSize == capacity) {
      long[] t = new long[capacity * 2];
      long[] q = new long[capacity * 2];
      long[] p = new long[capacity * 2];
      for (int i = 0; i < fifoSize; i++) {
        int from = (fifoHead + i) & (capacity - 1);
        t[i] = fifoTimes[from];
        q[i] = fifoSequences[from];
        p[i] = fifoPayloads[from];
      }
      fifoTimes = t;
      fifoSequences = q;
      fifoPayloads = p;
      fifoHead = 0;
      capacity *= 2;
    }
    int at0 = (fifoHead + fifoSize++) & (capacity - 1);
    fifoTimes[at0] = at;
    fifoSequences[at0] = nextSequence++;
    fifoPayloads[at0] = ((long) eventType << 32) | (eventArgument & 0xFFFF_FFFFL);
  }

  private boolean fifoFirst() {
    if (fifoSize == 0) {
      return false;
    }
    return size == 0 || before(fifoTimes[fifoHead], fifoSequences[fifoHead], heap[0], heap[1]);
  }

  /** Schedules an event; {@code type} must fit in 31 bits. */
  void schedule(long at, int eventType, int eventArgument) {
    long[] h = heap;
    if (3 * size == h.length) {
      heap = h = Arrays.copyOf(h, h.length * 2);
    }
    long sequence = nextSequence++;
    long payload = ((long) eventType << 32) | (eventArgument & 0xFFFF_FFFFL);
    int i = size++;
    // Sift up: move parents down until the new event's place is found.
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      int p = 3 * parent;
      long parentTime = h[p];
      if (parentTime < at || (parentTime == at && h[p + 1] < sequence)) {
        break;
      }
      int c = 3 * i;
      h[c] = parentTime;
      h[c + 1] = h[p + 1];
      h[c + 2] = h[p + 2];
      i = parent;
    }
    int c = 3 * i;
    h[c] = at;
    h[c + 1] = sequence;
    h[c + 2] = payload;
  }

  /** The time of the earliest event; the queue must not be empty. */
  long peekTime() {
    return fifoFirst() ? fifoTimes[fifoHead] : heap[0];
  }

  /** Removes the earliest event; read it with {@link #time()}, {@link #type()} and {@link #argument()}. */
  void poll() {
    if (fifoFirst()) {
      time = fifoTimes[fifoHead];
      long payload = fifoPayloads[fifoHead];
      type = (int) (payload >>> 32);
      argument = (int) payload;
      fifoHead = (fifoHead + 1) & (fifoTimes.length - 1);
      fifoSize--;
      return;
    }
    long[] h = heap;
    time = h[0];
    long payload = h[2];
    type = (int) (payload >>> 32);
    argument = (int) payload;
    int last = --size;
    if (last == 0) {
      return;
    }
    int l = 3 * last;
    long lastTime = h[l];
    long lastSequence = h[l + 1];
    long lastPayload = h[l + 2];
    int i = 0;
    int half = last >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int c = 3 * child;
      int right = c + 3;
      if (child + 1 < last && before(h[right], h[right + 1], h[c], h[c + 1])) {
        child++;
        c = right;
      }
      if (!before(h[c], h[c + 1], lastTime, lastSequence)) {
        break;
      }
      int at = 3 * i;
      h[at] = h[c];
      h[at + 1] = h[c + 1];
      h[at + 2] = h[c + 2];
      i = child;
    }
    int at = 3 * i;
    h[at] = lastTime;
    h[at + 1] = lastSequence;
    h[at + 2] = lastPayload;
  }

  long time() {
    return time;
  }

  int type() {
    return type;
  }

  int argument() {
    return argument;
  }

  private static boolean before(long t1, long s1, long t2, long s2) {
    return t1 < t2 || (t1 == t2 && s1 < s2);
  }
}
