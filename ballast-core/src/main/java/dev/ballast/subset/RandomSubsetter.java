package dev.ballast.subset;

import java.util.Arrays;

/** Each client shuffles the backends with its own seed and takes the first {@code k}. */
final class RandomSubsetter implements Subsetter {
  private final long salt;

  RandomSubsetter(long salt) {
    this.salt = salt;
  }

  @Override
  public String name() {
    return "random";
  }

  @Override
  public int[] subsetRanks(BackendSet backends, ClientIdentity client, int subsetSize) {
    SubsetArguments.checkSubsetSize(subsetSize, backends.size());
    int[] permutation = Shuffle.permutation(backends.size(), client.seedFor(salt, Tags.RANDOM));
    return Arrays.copyOf(permutation, subsetSize);
  }
}
