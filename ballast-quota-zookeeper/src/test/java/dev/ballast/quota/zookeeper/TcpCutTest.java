package dev.ballast.quota.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.quota.zookeeper.testing.TcpCut;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** The relay the process tests cut and hold: what a client sees when nothing listens behind it. */
class TcpCutTest {
  @Test
  void aConnectionToARelayWhoseProcessIsDownIsClosedNotLeftSilent() throws Exception {
    int deadPort;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      deadPort = free.getLocalPort();
    }
    try (TcpCut relay = new TcpCut(deadPort); Socket client = new Socket()) {
      String[] hostPort = relay.address().split(":");
      client.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
      // A hang guard only: the relay closes the connection as soon as its own connect is refused.
      client.setSoTimeout(60_000);
      InputStream in = client.getInputStream();
      assertThat(in.read()).as("the relay's answer to a client when its target is down: end of stream").isEqualTo(-1);
    }
  }
}
