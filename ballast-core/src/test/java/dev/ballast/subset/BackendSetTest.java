package dev.ballast.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

final class BackendSetTest {

  @Test
  void sortsKeysInNaturalOrderWhateverTheInputOrder() {
    BackendSet set = BackendSet.of(List.of("task-10", "task-2", "task-1", "api-3", "task-02x"));
    assertThat(set.keys()).containsExactly("api-3", "task-1", "task-2", "task-02x", "task-10");
    assertThat(BackendSet.of(List.of("task-1", "task-10", "task-2")).keys())
        .isEqualTo(BackendSet.of(List.of("task-2", "task-1", "task-10")).keys());
  }

  @Test
  void numbersOfAnyLengthCompareByValueAndLeadingZerosBreakTies() {
    assertThat(BackendKeys.compare("b99999999999999999999", "b100000000000000000000")).isNegative();
    assertThat(BackendKeys.compare("b7", "b07")).isNotZero();
    assertThat(BackendKeys.compare("b7", "b07")).isEqualTo(-BackendKeys.compare("b07", "b7"));
    assertThat(BackendKeys.compare("x", "x")).isZero();
    assertThat(BackendKeys.compare("x", "x1")).isNegative();
  }

  @Test
  void findsRanksByKey() {
    BackendSet set = BackendSet.of(List.of("c", "a", "b"));
    assertThat(set.rankOf("b")).isEqualTo(1);
    assertThat(set.rankOf("z")).isEqualTo(-1);
  }

  @Test
  void rejectsDuplicateKeysNamingTheKey() {
    assertThatThrownBy(() -> BackendSet.of(List.of("a", "b", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("backends: duplicate key 'a' (expected: unique keys)");
  }

  @Test
  void rejectsEmptyInputAndEmptyKeys() {
    assertThatThrownBy(() -> BackendSet.of(List.of()))
        .hasMessage("backends: none (expected: at least 1 backend)");
    assertThatThrownBy(() -> BackendSet.of(List.of("a", "")))
        .hasMessage("backends: key '' (expected: a non-empty key)");
    assertThatThrownBy(() -> BackendSet.ofCount(0)).hasMessage("backends: 0 (expected: at least 1)");
  }

  @Test
  void genericSubsetRejectsDuplicateKeys() {
    record Task(String name) {}
    assertThatThrownBy(
            () -> Subsetter.rendezvous().subset(List.of(new Task("a"), new Task("a")), Task::name, ClientIdentity.anonymous(1), 1))
        .hasMessage("backends: duplicate key 'a' (expected: unique keys)");
  }
}
