package dev.ballast.subset;

import java.util.Objects;

/** The argument checks every subsetter shares, each with the project's message shape. */
final class SubsetArguments {
  private SubsetArguments() {}

  /** Checks {@code subsetSize} against the number of backends, with the project's message shape. */
  static void checkSubsetSize(int subsetSize, int backendCount) {
    if (subsetSize < 1 || subsetSize > backendCount) {
      throw new IllegalArgumentException(
          "subsetSize: " + subsetSize + " (expected: 1.." + backendCount + ")");
    }
  }

  static void checkClientCount(int clientCount) {
    if (clientCount < 1) {
      throw new IllegalArgumentException("clients: " + clientCount + " (expected: 1 or more)");
    }
  }

  /** The index that index-based algorithms need, or a clear error naming the algorithm. */
  static int requireIndex(ClientIdentity client, String algorithm) {
    Objects.requireNonNull(client, "client");
    if (!client.hasIndex()) {
      throw new IllegalArgumentException(
          "client: anonymous (expected: a dense client index for " + algorithm
              + "; use rendezvous or random for clients without one)");
    }
    return client.index();
  }
}
