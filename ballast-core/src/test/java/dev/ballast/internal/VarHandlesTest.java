package dev.ballast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.junit.jupiter.api.Test;

final class VarHandlesTest {
  private volatile long counter;

  @Test
  void findsAPrivateFieldOfTheLookupClass() {
    VarHandle handle = VarHandles.field(MethodHandles.lookup(), "counter", long.class);
    handle.getAndAdd(this, 5L);
    assertThat(counter).isEqualTo(5);
  }

  @Test
  void aMissingFieldNamesTheClassTheFieldAndTheType() {
    assertThatThrownBy(() -> VarHandles.field(MethodHandles.lookup(), "count", long.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("field dev.ballast.internal.VarHandlesTest.count of type long: ");
  }
}
