package io.softrdma.samples.perf;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A closed loop of cache operations: {@code outstanding} in flight, each started as one completes, until the budget
 * is spent; every operation's latency, from its subscription to its completion, is kept, so that p50 and p99 are
 * those of the load measured (with 1 outstanding, one operation at a time).
 *
 * <p>Thread safety: one {@link #run} at a time per instance; completions may come on any thread (flatMap orders
 * what follows them).
 */
final class CacheLoad {
    private CacheLoad() {
    }

    /**
     * What a phase measured.
     *
     * @param operations how many completed
     * @param nanos the wall time from the first start to the last completion
     * @param sortedLatencies each operation's latency in nanoseconds, ascending
     * @param wrong how many completed with an answer that was not what was written (a GET's value of another size
     *     or content, or no value)
     */
    record Phase(long operations, long nanos, long[] sortedLatencies, long wrong) {
        /** Phases run one after another taken as one: their operations, times and wrong answers summed. */
        static Phase of(List<Phase> parts) {
            long operations = 0;
            long nanos = 0;
            long wrong = 0;
            LongArray latencies = new LongArray();
            for (Phase p : parts) {
                operations += p.operations;
                nanos += p.nanos;
                wrong += p.wrong;
                latencies.addAll(p.sortedLatencies);
            }
            long[] sorted = latencies.toArray();
            Arrays.sort(sorted);
            return new Phase(operations, nanos, sorted, wrong);
        }

        double perSecond() {
            return operations / (nanos / 1e9);
        }

        double percentileMicros(int percent) {
            if (sortedLatencies.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.min(sortedLatencies.length - 1, (long) sortedLatencies.length * percent / 100);
            return sortedLatencies[i] / 1e3;
        }
    }

    /**
     * Runs {@code op(i)} for i = 0, 1, 2, ... with {@code outstanding} in flight until {@code budget} is spent.
     *
     * @param op an operation that completes with true when its answer is right
     */
    static Phase run(IntFunction<Mono<Boolean>> op, int outstanding, Budget budget) {
        long[] started = {0};
        long start = System.nanoTime();
        long deadline = budget.deadline(start);
        LongArray latencies = new LongArray();
        long[] wrong = {0};
        Flux<Integer> indices = Flux.generate(sink -> {
            if (budget.over(started[0], deadline)) {
                sink.complete();
            } else {
                sink.next((int) (started[0]++ & Integer.MAX_VALUE));
            }
        });
        indices.flatMap(i -> Mono.defer(() -> {
            long t0 = System.nanoTime();
            return op.apply(i).defaultIfEmpty(false).map(right -> right ? System.nanoTime() - t0 : -1L);
        }), outstanding, 1).doOnNext(latency -> {
            if (latency < 0) {
                wrong[0]++;
            } else {
                latencies.add(latency);
            }
        }).blockLast(Duration.ofSeconds(budget.timeoutSeconds()));
        long nanos = System.nanoTime() - start;
        long[] sorted = latencies.toArray();
        Arrays.sort(sorted);
        return new Phase(sorted.length + wrong[0], nanos, sorted, wrong[0]);
    }

    /** A growable array of longs, without boxing: a phase at a million operations per second keeps them all. */
    private static final class LongArray {
        private long[] values = new long[1 << 16];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        void addAll(long[] more) {
            if (size + more.length > values.length) {
                values = Arrays.copyOf(values, Math.max(size + more.length, size * 2));
            }
            System.arraycopy(more, 0, values, size, more.length);
            size += more.length;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
