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

    @Test
    void aWarmUpGoesOnPastItsTimeUntilItsMinimumButNotPastItsOvertime() {
        Budget warmup = Budget.warmup(Duration.ofSeconds(1), 20_000, Duration.ofSeconds(10));
        long justPast = warmup.deadline(System.nanoTime() - Duration.ofSeconds(2).toNanos());
        long longPast = warmup.deadline(System.nanoTime() - Duration.ofSeconds(12).toNanos());
        long future = warmup.deadline(System.nanoTime());
        assertThat(warmup.over(Budget.CLOCK_EVERY * 10, justPast)).as("time is up, minimum not reached").isFalse();
        assertThat(warmup.over(Budget.CLOCK_EVERY * 313, justPast)).as("minimum reached (20,032)").isTrue();
        assertThat(warmup.over(Budget.CLOCK_EVERY * 400, future)).as("minimum reached, time not up").isFalse();
        assertThat(warmup.over(Budget.CLOCK_EVERY * 10, longPast)).as("overtime spent").isTrue();
        assertThat(warmup.timeoutSeconds()).isEqualTo(71);
    }

    @Test
    void noWarmUpTimeMeansNoWarmUpWhateverTheMinimum() {
        assertThat(Budget.warmup(Duration.ZERO, 20_000, Duration.ofSeconds(10)).isEmpty()).isTrue();
    }
}
