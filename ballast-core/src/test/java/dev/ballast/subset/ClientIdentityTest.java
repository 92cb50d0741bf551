package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class ClientIdentityTest {

  @Test
  void anIndexOutsideZeroToCountIsRejectedNamingTheIndexAndTheRange() {
    // -1 is also the internal marker of an anonymous client: it must not turn an indexed client
    // into an anonymous one that shares its subset with every other client given -1.
    assertThatThrownBy(() -> ClientIdentity.of(-1, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("client index: -1 (expected: 0..4 for 5 clients)");
    assertThatThrownBy(() -> ClientIdentity.of(-7, 5))
        .hasMessage("client index: -7 (expected: 0..4 for 5 clients)");
    assertThatThrownBy(() -> ClientIdentity.of(5, 5))
        .hasMessage("client index: 5 (expected: 0..4 for 5 clients)");
  }

  @Test
  void anIndexedClientHasItsIndexAndCount() {
    ClientIdentity client = ClientIdentity.of(4, 5);
    assertThat(client.hasIndex()).isTrue();
    assertThat(client.index()).isEqualTo(4);
    assertThat(client.count()).isEqualTo(5);
  }
}
