package dev.ballast.health;

enum SystemNanoClock implements NanoClock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
