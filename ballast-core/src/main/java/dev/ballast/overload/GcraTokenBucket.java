package dev.ballast.overload;

import dev.ballast.internal.Ranges;
import dev.ballast.internal.VarHandles;
import dev.ballast.time.NanoClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * {@link TokenBucket} as the generic cell rate algorithm (GCRA): instead of a token count and the
 * time it was last updated (two words, which one compare-and-set cannot change together), the
 * bucket keeps one number, its <em>theoretical arrival time</em> (TAT): the time at which it would
 * be empty again had it not refilled. A bucket whose TAT is at or before now is full; one whose
 * TAT is {@code d} ahead of now holds {@code burst - d x rate} tokens. Taking {@code n} tokens
 * moves the TAT {@code n / rate} ahead of {@code max(TAT, now)}, if that stays within {@code
 * burst / rate} of now. So a request reads the TAT, makes one compare-and-set if it admits, and
 * allocates nothing; a refusal writes nothing. (It also reads the current {@link Schedule}, a
 * second volatile read, a plain load on x86: the price of changing the rate atomically, below.)
 *
 * <p><b>Units.</b> Counting that time in nanoseconds would add {@code 1e9 / rate} per token, which
 * is not a whole number for most rates (3 per second: 333,333,333.3 ns); rounding it on every
 * request drifts, by up to a nanosecond per request. So time is counted in <em>units</em> of a
 * fraction of a nanosecond, chosen per rate so that a token is a whole number of units ({@link
 * Schedule#unitsPerToken}) and the units that pass in {@code t} nanoseconds are {@code floor(t x
 * mult / 2^shift)}, computed exactly in 128 bits from the schedule's origin. Nothing is rounded
 * per request, and the one rounding (the floor) does not accumulate. A rate is exact when {@code
 * rate x unitsPerToken / 1e9} is a binary fraction: {@code unitsPerToken} is a power of five
 * (the fives missing from the rate's decimal digits) times a power of two, which makes every rate
 * with few significant digits exact. Others are rounded down to 62 significant bits, so the bucket
 * never admits more than its rate allows.
 *
 * <p><b>Ranges.</b> At most 8 units pass per nanosecond and {@code burst x unitsPerToken <=
 * 2^60}, so every sum stays below 2^63. The units since the origin saturate at 2^62, at least 18
 * years after the bucket was created or its rate last set: from then on it stops refilling. Rate
 * 0 is a multiplier of 0: nothing refills and no division by the rate is ever made. An idle bucket
 * needs no care: its TAT falls behind now and {@code max(TAT, now)} forgets it.
 *
 * <p><b>Setting the rate.</b> The units change with the rate, so a rate is a {@link Schedule} (its
 * units, its origin, and the TAT counted in them), replaced whole. {@code setRate}, under a lock,
 * publishes the new schedule holding the tokens the old one held, then seals the old one's TAT
 * (its sign bit) with a compare-and-set. A {@code tryAcquire} that finds its schedule sealed reads
 * the new one, which was published before the seal, so it never waits for {@code setRate}. Tokens
 * the old schedule admitted between the publication and the seal are charged to the new one.
 */
final class GcraTokenBucket implements TokenBucket {
  /** A TAT with this bit set belongs to a schedule that {@code setRate} has replaced. */
  private static final long SEALED = Long.MIN_VALUE;
  /** The largest rate (tokens per second) and the largest burst. */
  static final long MAX = 1_000_000_000L;
  private static final long MAX_UNITS = 1L << 62;
  private static final long MAX_BURST_UNITS = 1L << 60;
  private static final int MAX_UNITS_PER_NANO = 8;

  private final long burst;
  private final NanoClock clock;
  private final Object rateLock = new Object();
  private volatile Schedule schedule;

  GcraTokenBucket(double rate, long burst, NanoClock clock) {
    this.burst = burst;
    this.clock = clock;
    Schedule full = new Schedule(rate, burst, clock.nanoTime());
    full.initTat(0);
    this.schedule = full;
  }

  static void checkRate(double ratePerSecond) {
    Ranges.checkDouble("ratePerSecond", ratePerSecond, 0, MAX);
  }

  @Override
  public boolean tryAcquire(long n) {
    Ranges.checkLong("n", n, 1, burst);
    long now = clock.nanoTime();
    for (;;) {
      Schedule s = schedule;
      long tat = s.tat();
      if (tat < 0) {
        continue; // sealed: the schedule that replaced it is already published
      }
      long units = s.unitsAt(now);
      long next = Math.max(tat, units) + n * s.unitsPerToken;
      if (next - units > s.burstUnits) {
        return false;
      }
      if (s.casTat(tat, next)) {
        return true;
      }
    }
  }

  @Override
  public void setRate(double ratePerSecond) {
    checkRate(ratePerSecond);
    synchronized (rateLock) {
      Schedule old = schedule;
      long now = clock.nanoTime();
      long seen = old.tat(); // never sealed: only this lock's holder seals
      Schedule next = new Schedule(ratePerSecond, burst, now);
      long carried = next.convert(old.levelAt(seen, now), old);
      next.initTat(next.burstUnits - carried);
      schedule = next;
      // Requests that read the old schedule before the line above may still take its tokens:
      // seal it, charging the new schedule for what they took since 'seen'.
      while (!old.casTat(seen, seen | SEALED)) {
        seen = old.tat();
        long left = next.convert(old.levelAt(seen, now), old);
        next.charge(carried - left, clock.nanoTime());
        carried = left;
      }
    }
  }

  @Override
  public double rate() {
    return schedule.rate;
  }

  @Override
  public long burst() {
    return burst;
  }

  @Override
  public double available() {
    long now = clock.nanoTime();
    for (;;) {
      Schedule s = schedule;
      long tat = s.tat();
      if (tat >= 0) {
        return Math.max(0, s.levelAt(tat, now)) / (double) s.unitsPerToken;
      }
    }
  }

  /** Whether the current rate is kept exactly (for tests). */
  boolean exactRate() {
    return schedule.exact;
  }

  @Override
  public String toString() {
    return "TokenBucket[rate=" + rate() + ", burst=" + burst + ", available=" + available() + "]";
  }

  /** One rate's units and origin, and the TAT counted in them. */
  static final class Schedule {
    private static final VarHandle TAT = VarHandles.field(MethodHandles.lookup(), "tat", long.class);

    final double rate;
    final long originNanos;
    final long unitsPerToken;
    final long burstUnits;
    /** Units per nanosecond: {@code mult / 2^shift}. */
    final long mult;
    final int shift;
    /** Nanoseconds after the origin at which the units saturate at {@link #MAX_UNITS}. */
    final long maxElapsed;
    final boolean exact;
    /** The TAT in units since the origin; {@link #SEALED} once replaced. */
    private volatile long tat;

    Schedule(double rate, long burst, long originNanos) {
      this.rate = rate;
      this.originNanos = originNanos;
      long maxUnitsPerToken = MAX_BURST_UNITS / burst;
      BigDecimal unitsPerNano;
      if (rate == 0) {
        unitsPerToken = Long.highestOneBit(maxUnitsPerToken);
        unitsPerNano = BigDecimal.ZERO;
      } else {
        BigDecimal r = BigDecimal.valueOf(rate).stripTrailingZeros();
        long q = exactUnitsPerToken(r, maxUnitsPerToken);
        unitsPerToken = q > 0 ? q : largestUnitsPerToken(r, 1, maxUnitsPerToken);
        unitsPerNano = r.multiply(BigDecimal.valueOf(unitsPerToken)).movePointLeft(9);
      }
      burstUnits = burst * unitsPerToken;
      // 62 significant bits of the units per nanosecond, so that t x mult < 2^125 for any t.
      int s = 126;
      BigInteger m = scaled(unitsPerNano, s);
      if (m.bitLength() > 62) {
        s -= m.bitLength() - 62;
        m = scaled(unitsPerNano, s);
      }
      mult = m.longValueExact();
      shift = s;
      exact = new BigDecimal(m).compareTo(unitsPerNano.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(s)))) == 0;
      maxElapsed = mult == 0
          ? Long.MAX_VALUE
          : BigInteger.valueOf(MAX_UNITS).shiftLeft(s).divide(m).min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
    }

    /**
     * The units per token that keep {@code rate} exact (units per nanosecond a binary fraction):
     * the fives that the rate's decimal digits lack, times the largest power of two within the
     * limits; 0 if those fives alone break a limit.
     */
    private static long exactUnitsPerToken(BigDecimal r, long maxUnitsPerToken) {
      BigInteger digits = r.unscaledValue();
      int fives = 9 + r.scale(); // rate x q / 10^9 = digits x q / 10^(9 + scale)
      BigInteger five = BigInteger.valueOf(5);
      while (fives > 0 && digits.mod(five).signum() == 0) {
        digits = digits.divide(five);
        fives--;
      }
      if (fives > 27) {
        return 0; // 5^28 > 2^60
      }
      long base = five.pow(Math.max(0, fives)).longValueExact();
      if (base > maxUnitsPerToken || unitsPerNano(r, base).compareTo(BigDecimal.valueOf(MAX_UNITS_PER_NANO)) > 0) {
        return 0;
      }
      return largestUnitsPerToken(r, base, maxUnitsPerToken);
    }

    /** The largest {@code base x 2^j} within both limits; {@code base} itself must be within them. */
    private static long largestUnitsPerToken(BigDecimal r, long base, long maxUnitsPerToken) {
      long q = base;
      while (q <= maxUnitsPerToken / 2
          && unitsPerNano(r, 2 * q).compareTo(BigDecimal.valueOf(MAX_UNITS_PER_NANO)) <= 0) {
        q *= 2;
      }
      return q;
    }

    private static BigDecimal unitsPerNano(BigDecimal rate, long unitsPerToken) {
      return rate.multiply(BigDecimal.valueOf(unitsPerToken)).movePointLeft(9);
    }

    /** {@code floor(x x 2^shift)}. */
    private static BigInteger scaled(BigDecimal x, int shift) {
      return x.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(shift))).toBigInteger();
    }

    long tat() {
      return tat;
    }

    void initTat(long value) {
      tat = value;
    }

    boolean casTat(long expected, long value) {
      return TAT.compareAndSet(this, expected, value);
    }

    /** The units from the origin to {@code nowNanos}: {@code floor(elapsed x mult / 2^shift)}, exactly. */
    long unitsAt(long nowNanos) {
      long elapsed = Math.min(Math.max(0, nowNanos - originNanos), maxElapsed);
      long high = Math.multiplyHigh(elapsed, mult);
      long low = elapsed * mult;
      return shift < 64 ? (high << (64 - shift)) | (low >>> shift) : high >>> (shift - 64);
    }

    /** The units of tokens held at {@code nowNanos} for TAT {@code tat}: at most burst, below 0 when in debt. */
    long levelAt(long tat, long nowNanos) {
      return burstUnits - Math.max(0, tat - unitsAt(nowNanos));
    }

    /** {@code units} of schedule {@code from}, in this schedule's units, rounded down. */
    long convert(long units, Schedule from) {
      BigInteger[] qr = BigInteger.valueOf(units).multiply(BigInteger.valueOf(unitsPerToken))
          .divideAndRemainder(BigInteger.valueOf(from.unitsPerToken));
      BigInteger floor = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
      // Debt beyond a bucket's worth can only come from requests racing setRate for a long
      // time; capping it keeps every sum in range.
      return floor.max(BigInteger.valueOf(-burstUnits)).longValueExact();
    }

    /** Takes {@code units} (at least 0) from the bucket as of {@code nowNanos}, into debt if need be. */
    void charge(long units, long nowNanos) {
      long now = unitsAt(nowNanos);
      for (;;) {
        long current = tat;
        long next = Math.min(Math.max(current, now) + units, now + 2 * burstUnits);
        if (casTat(current, next)) {
          return;
        }
      }
    }
  }
}
