package dev.ballast.quota.zookeeper;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Ends a ZooKeeper session from outside the client that holds it, as ZooKeeper does when the session times out. */
public final class ZooKeeperSessions {
  private ZooKeeperSessions() {}

  /**
   * The session of {@code curator}'s client: its id and password, read now, to {@link #end} it
   * later, after the client was cut off.
   */
  public record Session(long id, byte[] password) {}

  public static Session of(CuratorFramework curator) throws Exception {
    ZooKeeper client = curator.getZookeeperClient().getZooKeeper();
    return new Session(client.getSessionId(), client.getSessionPasswd());
  }

  /**
   * Ends {@code session} on the ZooKeeper at {@code connectString}: connects with its id and
   * password and closes it, so that ZooKeeper deletes its ephemeral nodes and the other
   * participants of its elections learn it at once. Waits for the connection for a minute at most.
   */
  public static void end(String connectString, Session session) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper other = new ZooKeeper(connectString, 20_000, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    }, session.id(), session.password());
    try {
      if (!connected.await(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException("ZooKeeper at " + connectString + " took no connection of session 0x"
            + Long.toHexString(session.id()) + " within a minute");
      }
    } finally {
      other.close();
    }
  }
}
