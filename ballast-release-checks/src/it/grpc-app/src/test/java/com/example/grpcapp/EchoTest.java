package com.example.grpcapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.ballast.grpc.BallastLoadBalancerProvider;
import dev.ballast.grpc.BallastServer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import org.junit.jupiter.api.Test;

class EchoTest {
  @Test
  void theBallastPolicyIsFoundThroughItsServiceRegistration() {
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider("ballast");

    assertNotNull(provider, "no load-balancing policy named ballast");
    assertEquals(BallastLoadBalancerProvider.class, provider.getClass());
  }

  @Test
  void callsGoThroughTheBallastPolicyToABallastServer() throws Exception {
    BallastServer server = Echo.startServer("task-0");
    ManagedChannel channel = Echo.channel("127.0.0.1:" + server.server().getPort());
    try {
      for (int i = 0; i < 20; i++) {
        assertEquals("task-0: hello " + i, Echo.call(channel, "hello " + i));
      }
    } finally {
      channel.shutdownNow();
      server.server().shutdownNow();
    }
  }
}
