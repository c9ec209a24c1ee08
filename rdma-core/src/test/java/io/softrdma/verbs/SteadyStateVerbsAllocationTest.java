package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.EventExecutor;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.testing.WithoutLeakTracking;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No allocation per message on the hot path, end to end: after warm-up, RDMA Writes, Sends (with
 * their receives reposted) and RDMA Reads of 64 octets, 4 KiB and (Writes, Reads) 64 KiB, kept 8 in flight by completion callbacks with
 * prebuilt work requests, allocate (next to) no heap memory on either side's event loop: segmenting,
 * framing, CRC, deframing, placement, completion — and Netty's own work for it.
 *
 * <p>Measured with the JVM's per-thread allocation counter over both event loops, without leak
 * tracking (whose records are allocation themselves). Eight in flight, because Netty's recycler keeps
 * 32 released objects per thread at hand and allocates for bursts beyond that (as a writev that
 * completes hundreds of writes at once causes; docs/benchmarks.md).
 *
 * <p>A 4 KiB Read Response is past the encoder's copy limit: it is copied (CRC on) into a new pooled
 * buffer, which the CRC must read without a new view of it (135 octets per Read before, JFR). Streams of 4 KiB and
 * 64 KiB fill the 64 KiB read buffers, so FPDUs span two reads (one in sixteen at 4 KiB, nearly all at 64 KiB): the
 * decoder chains the reads ({@code ChainedByteBuf}) where Netty's composite cumulation allocated some 7 and 90
 * octets per operation (issue 18).
 */
@ExtendWith(WithoutLeakTracking.class)
class SteadyStateVerbsAllocationTest {
    private static final int WINDOW = 8;
    /**
     * 4 KiB Reads in flight: more Read Response copies alive at once than the CRC kept views of (8, one per buffer:
     * 129 octets per Read then).
     */
    private static final int READ_4K_WINDOW = 12;
    /**
     * Long enough that what happens once (a class linked, a pool chunk or a recycler's queue grown; on Java 25 a
     * Send once showed some 110 KB of it inside a window of 40,000) is behind the warm-up or spread thin: the bound
     * is on what every operation allocates.
     */
    private static final int WARMUP = 200_000;
    private static final int MEASURED = 200_000;
    private static final int LARGE_OPERATIONS = 40_000;

    enum Operation { WRITE, SEND, READ }

    static Stream<Arguments> operations() {
        Stream<Arguments> larger = Stream.of(Arguments.of(Operation.READ, 4096, READ_4K_WINDOW),
                Arguments.of(Operation.WRITE, 4096, WINDOW), Arguments.of(Operation.SEND, 4096, WINDOW),
                Arguments.of(Operation.WRITE, 65536, WINDOW), Arguments.of(Operation.READ, 65536, WINDOW));
        return Stream.concat(Stream.of(Operation.values()).map(o -> Arguments.of(o, 64, WINDOW)), larger);
    }

    /** Fewer operations of 64 KiB, whose phases would otherwise move some 13 GB each. */
    private static long operations(int size) {
        return size >= 65536 ? LARGE_OPERATIONS : MEASURED;
    }

    @ParameterizedTest(name = "{0} of {1} octets, {2} in flight")
    @MethodSource("operations")
    void steadyStateAllocatesNothingPerOperation(Operation operation, int size, int window) throws Exception {
        try (Loopback lb = new Loopback(MpaSettings.defaults(), c -> c.withSendQueueDepth(64),
                c -> c.withReceiveQueueDepth(64))) {
            MemoryRegion local = lb.client.allocate(size, Access.LOCAL_WRITE);
            MemoryRegion remote = lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            ScatterGatherEntry all = ScatterGatherEntry.of(local);
            SendWorkRequest request = switch (operation) {
                case WRITE -> SendWorkRequest.write(1, remote.advertise(), all);
                case SEND -> SendWorkRequest.send(1, all);
                case READ -> SendWorkRequest.read(1, all, remote.stag(), remote.baseTaggedOffset());
            };
            MemoryRegion receiveBuffers = lb.server.allocate(size * 64, Access.LOCAL_WRITE);
            ReceiveWorkRequest[] receives = new ReceiveWorkRequest[64];
            for (int i = 0; i < receives.length; i++) {
                receives[i] = ReceiveWorkRequest.of(i, new ScatterGatherEntry(receiveBuffers, (long) size * i, size));
                lb.server.qp.postReceive(receives[i]);
            }
            // The server reposts each receive as it completes.
            java.util.concurrent.atomic.AtomicBoolean measuring = new java.util.concurrent.atomic.AtomicBoolean(true);
            CompletionQueue.Handler repost = c -> {
                if (c.isSuccess() && measuring.get()) {
                    lb.server.qp.postReceive(receives[(int) c.wrId()]);
                }
            };
            lb.server.cq.setListener(q -> {
                do {
                    while (q.poll(repost, 64) > 0) {
                        // keep polling
                    }
                    q.requestNotification(false);
                } while (q.poll(repost, 64) > 0);
            });
            lb.server.cq.requestNotification(false);

            Driver driver = new Driver(lb.client.qp, lb.client.cq, request, window);
            long operations = operations(size);
            driver.run(lb, Math.min(WARMUP, operations));
            long[] threads = eventLoopThreads(lb);
            long before = allocated(threads);
            driver.run(lb, operations);
            double perOperation = (double) (allocated(threads) - before) / operations;
            measuring.set(false);
            System.out.printf("%s of %d octets, %d in flight: %.2f heap octets allocated per operation%n", operation,
                    size, window, perOperation);
            assertThat(perOperation).as("heap octets allocated per %s of %d octets on both event loops", operation,
                    size).isLessThan(2.0);
        }
    }

    /** Keeps {@code window} operations in flight from the client's completion callback. */
    private static final class Driver implements CompletionQueue.Handler {
        private final QueuePair qp;
        private final CompletionQueue cq;
        private final SendWorkRequest request;
        private volatile CompletableFuture<Void> done;
        private long posted;
        private long completed;
        private final int window;
        private long total;

        Driver(QueuePair qp, CompletionQueue cq, SendWorkRequest request, int window) {
            this.qp = qp;
            this.cq = cq;
            this.request = request;
            this.window = window;
            cq.setListener(q -> {
                do {
                    while (q.poll(this, 64) > 0) {
                        // keep polling
                    }
                    q.requestNotification(false);
                } while (q.poll(this, 64) > 0);
            });
        }

        void run(Loopback lb, long operations) throws Exception {
            CompletableFuture<Void> finished = new CompletableFuture<>();
            lb.client.connection.channel().eventLoop().submit(() -> {
                done = finished;
                posted = 0;
                completed = 0;
                total = operations;
                cq.requestNotification(false);
                post();
            }).get(5, TimeUnit.SECONDS);
            finished.get(60, TimeUnit.SECONDS);
        }

        private void post() {
            while (posted < total && posted - completed < window) {
                qp.postSend(request);
                posted++;
            }
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            if (!c.isSuccess()) {
                done.completeExceptionally(new AssertionError(c.copy().toString()));
                return;
            }
            if (++completed == total) {
                done.complete(null);
            } else {
                post();
            }
        }
    }

    private static long[] eventLoopThreads(Loopback lb) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (EventExecutor e : lb.cm.eventLoopGroup()) {
            ids.add(e.submit(() -> Thread.currentThread().getId()).get(5, TimeUnit.SECONDS));
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static long allocated(long[] threads) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long bytes : mx.getThreadAllocatedBytes(threads)) {
            sum += bytes;
        }
        return sum;
    }
}
