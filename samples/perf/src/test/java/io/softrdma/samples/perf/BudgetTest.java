package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BudgetTest {
    @Test
    void aCountedPhaseStartsExactlyItsIterations() {
        Budget budget = Budget.of(100);
        assertThat(budget.over(99, 0)).isFalse();
        assertThat(budget.over(100, 0)).isTrue();
    }

    @Test
    void aTimedPhaseReadsTheClockOnlyEverySixtyFourOperations() {
        Budget budget = Budget.of(Duration.ofSeconds(1));
        long past = budget.deadline(System.nanoTime() - Duration.ofSeconds(2).toNanos());
        long future = budget.deadline(System.nanoTime());
        assertThat(budget.over(0, past)).as("the first operation looks").isTrue();
        assertThat(budget.over(1, past)).as("between looks, past the deadline").isFalse();
        assertThat(budget.over(Budget.CLOCK_EVERY - 1, past)).isFalse();
        assertThat(budget.over(Budget.CLOCK_EVERY, past)).isTrue();
        assertThat(budget.over(Budget.CLOCK_EVERY, future)).isFalse();
    }
}
