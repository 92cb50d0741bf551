package dev.ballast.sim;

import java.util.Arrays;

/**
 * One backend's cache of keys, least recently used out: a fixed number of entries in a doubly
 * linked list of array indexes, found through an open-addressing table, so that an access costs
 * O(1) and allocates nothing.
 */
final class LruCache {
  private static final int EMPTY = -1;

  private final int capacity;
  private final int[] keys;
  private final int[] newer;
  private final int[] older;
  /** Key to entry, linear probing; {@link #EMPTY} where free. */
  private final int[] table;
  private final int mask;
  private int size;
  private int newest = EMPTY;
  private int oldest = EMPTY;

  LruCache(int capacity) {
    this.capacity = capacity;
    this.keys = new int[capacity];
    this.newer = new int[capacity];
    this.older = new int[capacity];
    int slots = Integer.highestOneBit(Math.max(2, capacity * 2 - 1)) << 1;
    this.table = new int[slots];
    this.mask = slots - 1;
    Arrays.fill(table, EMPTY);
  }

  /** Whether {@code key} was cached; either way it is the most recently used one now. */
  boolean access(int key) {
    int slot = find(key);
    int entry = table[slot];
    if (entry != EMPTY) {
      unlink(entry);
      pushNewest(entry);
      return true;
    }
    if (size < capacity) {
      entry = size++;
    } else {
      entry = oldest;
      unlink(entry);
      remove(keys[entry]);
      slot = find(key);
    }
    keys[entry] = key;
    table[slot] = entry;
    pushNewest(entry);
    return false;
  }

  /** Forgets every key: the process restarted. */
  void clear() {
    Arrays.fill(table, EMPTY);
    size = 0;
    newest = EMPTY;
    oldest = EMPTY;
  }

  int size() {
    return size;
  }

  /** The slot that holds {@code key}, or the free slot where it would go. */
  private int find(int key) {
    int slot = mix(key) & mask;
    while (table[slot] != EMPTY && keys[table[slot]] != key) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  /** Removes {@code key}'s slot, moving later slots of its run back so that every key stays findable. */
  private void remove(int key) {
    int hole = find(key);
    table[hole] = EMPTY;
    for (int slot = (hole + 1) & mask; table[slot] != EMPTY; slot = (slot + 1) & mask) {
      int home = mix(keys[table[slot]]) & mask;
      // Move it back when its home is not within (hole, slot], cyclically.
      if (hole <= slot ? home <= hole || home > slot : home <= hole && home > slot) {
        table[hole] = table[slot];
        table[slot] = EMPTY;
        hole = slot;
      }
    }
  }

  /** Fibonacci hashing, its high bits folded down so that the mask's low bits see them. */
  private static int mix(int key) {
    int h = key * 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  private void unlink(int entry) {
    int n = newer[entry];
    int o = older[entry];
    if (n != EMPTY) {
      older[n] = o;
    } else {
      newest = o;
    }
    if (o != EMPTY) {
      newer[o] = n;
    } else {
      oldest = n;
    }
  }

  private void pushNewest(int entry) {
    newer[entry] = EMPTY;
    older[entry] = newest;
    if (newest != EMPTY) {
      newer[newest] = entry;
    }
    newest = entry;
    if (oldest == EMPTY) {
      oldest = entry;
    }
  }
}
