package dev.ballast.quota.zookeeper.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback between one replica and ZooKeeper, which the test can cut: every
 * connection closes at once and no new one is taken, as when the replica's process is killed with
 * SIGKILL. ZooKeeper keeps the replica's session, and its leadership, until the session times out:
 * closing the replica's Curator client instead would end the session at once, which a killed
 * process never does. The test can also hold the relay: the bytes sent either way wait, and
 * arrive when it is released, as over a network that drops packets for a while (TCP sends them
 * again) or to a process that is paused.
 */
public final class TcpCut implements AutoCloseable {
  private final ServerSocket listener;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean cut;
  private boolean held;

  public TcpCut(int targetPort) throws IOException {
    this.target = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-cut-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Where the replica connects: {@code 127.0.0.1:port}. */
  public String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  private void accept() {
    while (!cut) {
      try {
        Socket replica = listener.accept();
        Socket zookeeper = new Socket();
        try {
          zookeeper.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
        } catch (IOException e) {
          // Nothing listens behind the relay (its process is down): refuse as the process would,
          // by closing the connection just accepted, instead of leaving it open and silent, where
          // a client would wait on it for ever.
          closeQuietly(replica);
          closeQuietly(zookeeper);
          continue;
        }
        sockets.add(replica);
        sockets.add(zookeeper);
        if (cut) {
          closeAll();
          return;
        }
        pump(replica, zookeeper);
        pump(zookeeper, replica);
      } catch (IOException e) {
        if (!cut) {
          continue;
        }
        return;
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[8192];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n = in.read(buffer); n >= 0 && !cut; n = in.read(buffer)) {
          awaitRelease();
          out.write(buffer, 0, n);
          out.flush();
        }
        // A close waits for the release too, as the bytes before it do.
        awaitRelease();
      } catch (IOException e) {
        // the other side closed, or the cut did
      }
      closeQuietly(from);
      closeQuietly(to);
    }, "tcp-cut-pump");
    thread.setDaemon(true);
    thread.start();
  }

  /** Holds the bytes sent either way from now on, until {@link #release}. */
  public synchronized void hold() {
    held = true;
  }

  /** Lets the bytes held, and all that follow, through. */
  public synchronized void release() {
    held = false;
    notifyAll();
  }

  private synchronized void awaitRelease() throws IOException {
    while (held && !cut) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while held", e);
      }
    }
  }

  /** Cuts every connection and takes no new one. */
  public void cut() {
    cut = true;
    synchronized (this) {
      notifyAll();
    }
    closeQuietly(listener);
    closeAll();
  }

  private void closeAll() {
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // closing on the way out
    }
  }

  @Override
  public void close() {
    cut();
  }
}
