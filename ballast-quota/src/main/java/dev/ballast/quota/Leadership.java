package dev.ballast.quota;

import dev.ballast.annotation.Experimental;

/**
 * A replica's leadership of one resource, as far as the replica can vouch for it at an instant. A
 * {@link QuotaService} that leads a resource with a leadership ({@link QuotaService#lead(String,
 * Leadership)}) asks it on every request, and grants leases only while it is {@linkplain
 * #confirmedAt confirmed}: a leader that may have lost its election (its process paused past its
 * coordination session, or cut off from the coordination service) grants nothing, and answers
 * UNAVAILABLE as a follower does.
 *
 * <p>The check runs on every request, so it must be cheap: no I/O, no lock, no allocation. The
 * implementation confirms the leadership with the coordination service in the background and
 * answers from what it last heard ({@code dev.ballast.quota.zookeeper.ZooKeeperQuotaReplica} is
 * one). {@link #ALWAYS} is the leadership of a server that has no rival: a single server.
 */
@Experimental("the check on a replica's leadership is new: its interface may change")
public interface Leadership {
  /** A leadership that never lapses: a single server's, which no other replica can take over. */
  Leadership ALWAYS = new Leadership() {
    @Override
    public boolean confirmedAt(long nowNanos) {
      return true;
    }

    @Override
    public String unconfirmed(long nowNanos) {
      return "never";
    }
  };

  /**
   * Whether this replica may grant leases of the resource at {@code nowNanos}: no other replica can
   * have come to lead it by then.
   *
   * @param nowNanos the instant, read from the {@link QuotaService}'s clock when the request arrived
   * @return true while the leadership is confirmed at that instant
   */
  boolean confirmedAt(long nowNanos);

  /**
   * Called when a request found the leadership unconfirmed: starts confirming it again, without
   * waiting, and says why it is not confirmed, for the request's answer.
   *
   * @param nowNanos the instant, read from the {@link QuotaService}'s clock when the request arrived
   * @return why the leadership is not confirmed at that instant, a clause such as "ZooKeeper last
   *     answered 6.2 s ago, more than half the session timeout of 2 s"
   */
  String unconfirmed(long nowNanos);

  /**
   * The replica that leads the resource instead, as far as this one knows: where a request that
   * found this leadership unconfirmed is sent. Null (the default) when no other is known.
   *
   * @return the other leader's address, {@code host:port}, or null
   */
  default String otherLeader() {
    return null;
  }
}
