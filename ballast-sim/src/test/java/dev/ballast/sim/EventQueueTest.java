package dev.ballast.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class EventQueueTest {

  record Event(long time, long order, int type, int argument) {}

  @Test
  void takesEventsInTimeOrder() {
    EventQueue queue = new EventQueue(2);
    queue.schedule(30, 1, 3);
    queue.schedule(10, 1, 1);
    queue.schedule(20, 1, 2);
    List<Integer> arguments = new ArrayList<>();
    while (!queue.isEmpty()) {
      queue.poll();
      arguments.add(queue.argument());
    }
    assertThat(arguments).containsExactly(1, 2, 3);
  }

  @Test
  void eventsAtTheSameTimeComeOutInSchedulingOrder() {
    EventQueue queue = new EventQueue(16);
    for (int i = 0; i < 100; i++) {
      queue.schedule(5, 7, i);
    }
    for (int i = 0; i < 100; i++) {
      queue.poll();
      assertThat(queue.time()).isEqualTo(5);
      assertThat(queue.type()).isEqualTo(7);
      assertThat(queue.argument()).isEqualTo(i);
    }
    assertThat(queue.isEmpty()).isTrue();
  }

  @Test
  void inOrderLaneMergesWithTheHeapByTimeThenSchedulingOrder() {
    EventQueue queue = new EventQueue(16);
    queue.schedule(10, 0, 1);
    queue.scheduleInOrder(5, 0, 0);
    queue.scheduleInOrder(10, 0, 2);
    queue.schedule(10, 0, 3);
    assertThatThrownBy(() -> queue.scheduleInOrder(9, 0, 9))
        .isInstanceOf(IllegalArgumentException.class);
    List<Integer> arguments = new ArrayList<>();
    while (!queue.isEmpty()) {
      queue.poll();
      arguments.add(queue.argument());
    }
    // 5 first, then the three events at time 10 in the order they were scheduled.
    assertThat(arguments).containsExactly(0, 1, 2, 3);
  }

  @Test
  void matchesASortedListForRandomInterleavedSchedulesAndPolls() {
    SplittableRandom random = new SplittableRandom(42);
    EventQueue queue = new EventQueue(4);
    Comparator<Event> byTimeThenOrder = Comparator.comparingLong(Event::time).thenComparingLong(Event::order);
    PriorityQueue<Event> reference = new PriorityQueue<>(byTimeThenOrder);
    long order = 0;
    long now = 0;
    long lastInOrder = 0;
    for (int step = 0; step < 200_000; step++) {
      int action = random.nextInt(3);
      if (action == 0 || reference.isEmpty()) {
        long at = now + random.nextInt(1000);
        int argument = random.nextInt();
        queue.schedule(at, 1, argument);
        reference.add(new Event(at, order++, 1, argument));
      } else if (action == 1) {
        long at = Math.max(lastInOrder, now + 50);
        lastInOrder = at;
        int argument = random.nextInt();
        queue.scheduleInOrder(at, 2, argument);
        reference.add(new Event(at, order++, 2, argument));
      } else {
        Event expected = reference.poll();
        queue.poll();
        assertThat(new Event(queue.time(), expected.order(), queue.type(), queue.argument())).isEqualTo(expected);
        now = queue.time();
      }
      assertThat(queue.size()).isEqualTo(reference.size());
    }
  }
}
