package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.rdmap.TerminateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every opcode end to end over loopback TCP (RFC 5040 §5).
 *
 * <p>Why this class is long: one test per opcode and per posting rule, each a connection and a few work requests.
 */
class VerbsLoopbackTest {

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    static void fill(MemoryRegion region, byte[] data) {
        region.buffer().setBytes(0, data);
    }

    static byte[] contents(MemoryRegion region, int offset, int length) {
        return ByteBufUtil.getBytes(region.buffer(), offset, length);
    }

    @Test
    void rfc5040Section5_3SendIsPlacedIntoThePostedReceive() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion recv = lb.server.allocate(4096, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(7, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.client.allocate(100, Access.LOCAL_WRITE);
            fill(src, pattern(100, 1));
            lb.client.qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(src)));

            WorkCompletion sent = lb.client.next();
            assertThat(sent.opcode()).isEqualTo(WorkCompletionOpcode.SEND);
            assertThat(sent.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(sent.wrId()).isEqualTo(1);
            WorkCompletion received = lb.server.next();
            assertThat(received.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(7);
            assertThat(received.byteLength()).isEqualTo(100);
            assertThat(contents(recv, 0, 100)).isEqualTo(pattern(100, 1));
            recv.close();
            src.close();
        }
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {0, 1, 64767, 64768, 200_000, 1_000_000})
    void rfc5040Section5_3SendsOfAnySizeAreSegmentedAndReassembled(int size) throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion recv = lb.server.allocate(Math.max(size, 1), Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.client.allocate(Math.max(size, 1), Access.LOCAL_WRITE);
            fill(src, pattern(Math.max(size, 1), 3));
            lb.client.qp.postSend(SendWorkRequest.send(2, new ScatterGatherEntry(src, 0, size)));
            lb.client.nextSuccess();
            WorkCompletion r = lb.server.nextSuccess();
            assertThat(r.isSuccess()).isTrue();
            assertThat(r.byteLength()).isEqualTo(size);
            assertThat(contents(recv, 0, size)).isEqualTo(java.util.Arrays.copyOf(pattern(Math.max(size, 1), 3), size));
        }
    }

    @Test
    void rfc5040Section5_3GatheredSendScatteredIntoSeveralReceiveEntries() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion a = lb.server.allocate(1000, Access.LOCAL_WRITE);
            MemoryRegion b = lb.server.allocate(100_000, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, new ScatterGatherEntry(a, 10, 900),
                    new ScatterGatherEntry(b, 0, 100_000)));
            MemoryRegion x = lb.client.allocate(70_000, Access.LOCAL_WRITE);
            MemoryRegion y = lb.client.allocate(5_000, Access.LOCAL_WRITE);
            byte[] px = pattern(70_000, 4);
            byte[] py = pattern(5_000, 5);
            fill(x, px);
            fill(y, py);
            lb.client.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(x), ScatterGatherEntry.of(y)));
            lb.client.next();
            assertThat(lb.server.nextSuccess().byteLength()).isEqualTo(75_000);
            byte[] all = new byte[75_000];
            System.arraycopy(px, 0, all, 0, 70_000);
            System.arraycopy(py, 0, all, 70_000, 5_000);
            assertThat(contents(a, 10, 900)).isEqualTo(java.util.Arrays.copyOfRange(all, 0, 900));
            assertThat(contents(b, 0, 74_100)).isEqualTo(java.util.Arrays.copyOfRange(all, 900, 75_000));
        }
    }

    @Test
    void rfc5040Section5_3SolicitedEventIsReportedWithTheReceive() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion recv = lb.server.allocate(64, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.send(3, ScatterGatherEntry.of(src)));
            lb.client.qp.postSend(SendWorkRequest.send(4, ScatterGatherEntry.of(src)).withSolicitedEvent());
            assertThat(lb.server.nextSuccess().solicited()).isFalse();
            assertThat(lb.server.nextSuccess().solicited()).isTrue();
        }
    }

    /**
     * A read that brings many segments is carried out 32 at a time ({@link QueuePairHandler#SEGMENTS_PER_CYCLE}):
     * the completion event for the first 32 comes before the rest are processed, so what its consumer posts can go
     * out while they are. 100 Sends posted in one event-loop task leave in one flush and arrive in one read cycle;
     * with one event per read cycle, a single event would report all 100.
     */
    @Test
    void aReadOfManySegmentsRaisesACompletionEventEveryThirtyTwo() throws Exception {
        try (Loopback lb = new Loopback()) {
            int sends = 100;
            postEightOctetReceives(lb.server, sends);
            List<Integer> perEvent = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicInteger received = new AtomicInteger();
            lb.server.cq.setListener(q -> {
                perEvent.add(q.size());
                do {
                    while (q.poll() != null) {
                        received.incrementAndGet();
                    }
                    q.requestNotification(false);
                } while (q.size() > 0);
            });
            lb.server.cq.requestNotification(false);
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.connection.channel().eventLoop().submit(() -> {
                for (int i = 0; i < sends; i++) {
                    lb.client.qp.postSend(SendWorkRequest.send(i, ScatterGatherEntry.of(src)).unsignaled());
                }
            }).get(5, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> received.get() == sends);
            assertThat(perEvent).as("completions per event").allSatisfy(n -> assertThat(n)
                    .isLessThanOrEqualTo(QueuePairHandler.SEGMENTS_PER_CYCLE));
            assertThat(perEvent).hasSizeGreaterThanOrEqualTo(4);
            lb.assertNoTerminate();
        }
    }

    @Test
    void completionQueueArmedForSolicitedEventsWakesOnlyForThem() throws Exception {
        try (Loopback lb = new Loopback()) {
            CountDownLatch notified = new CountDownLatch(1);
            lb.server.cq.setListener(q -> notified.countDown());
            lb.server.cq.requestNotification(true);
            MemoryRegion recv = lb.server.allocate(64, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.send(3, ScatterGatherEntry.of(src)));
            lb.client.next();
            // The plain Send's completion is in the server's queue, and the event-loop task that added it (and would
            // have signalled a notification in the same call) is over: no notification having come is decided.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                    .until(() -> lb.server.cq.size() == 1);
            lb.server.connection.channel().eventLoop().submit(() -> { }).get(5, TimeUnit.SECONDS);
            assertThat(notified.getCount()).as("no event for a plain Send").isEqualTo(1);
            lb.client.qp.postSend(SendWorkRequest.send(4, ScatterGatherEntry.of(src)).withSolicitedEvent());
            assertThat(notified.await(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void rfc5040Section5_3SendWithInvalidateInvalidatesTheNamedStagAndReportsIt() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion advertised = lb.server.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            int stag = advertised.stag();
            MemoryRegion recv = lb.server.allocate(64, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(src)).withInvalidate(stag)
                    .withSolicitedEvent());
            WorkCompletion r = lb.server.nextSuccess();
            assertThat(r.invalidated()).isTrue();
            assertThat(r.invalidatedStag()).isEqualTo(stag);
            assertThat(r.solicited()).isTrue();
            assertThat(advertised.isValid()).isFalse();
        }
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {0, 1, 4096, 64754, 64755, 300_000})
    void rfc5040Section5_1WriteIsPlacedAtTheTaggedOffsetWithoutAReceive(int size) throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion target = lb.server.allocate(size + 100, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion src = lb.client.allocate(Math.max(size, 1), Access.LOCAL_WRITE);
            fill(src, pattern(Math.max(size, 1), 6));
            lb.client.qp.postSend(SendWorkRequest.write(1, target.advertise().slice(50, size),
                    new ScatterGatherEntry(src, 0, size)));
            WorkCompletion w = lb.client.next();
            assertThat(w.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
            assertThat(w.isSuccess()).isTrue();
            assertThat(w.byteLength()).isEqualTo(size);
            // §5.5 rule 5: a following Send tells the target the Write is placed.
            MemoryRegion recv = lb.server.allocate(8, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(recv)));
            lb.client.qp.postSend(SendWorkRequest.send(3, new ScatterGatherEntry(src, 0, 0)));
            lb.server.next();
            assertThat(contents(target, 50, size)).isEqualTo(java.util.Arrays.copyOf(pattern(Math.max(size, 1), 6), size));
        }
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {0, 1, 64754, 64755, 1_000_000})
    void rfc5040Section5_2ReadCompletesWhenItsResponseIsPlaced(int size) throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion source = lb.server.allocate(Math.max(size, 1), Access.REMOTE_READ);
            fill(source, pattern(Math.max(size, 1), 8));
            MemoryRegion sink = lb.client.allocate(Math.max(size, 1) + 10, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.read(1, new ScatterGatherEntry(sink, 10, size),
                    source.advertise().slice(0, size)));
            WorkCompletion r = lb.client.next();
            assertThat(r.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(r.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(r.byteLength()).isEqualTo(size);
            assertThat(contents(sink, 10, size)).isEqualTo(java.util.Arrays.copyOf(pattern(Math.max(size, 1), 8), size));
        }
    }

    @Test
    void regionsRegisteredAtAnAddressAreAddressedByIt() throws Exception {
        try (Loopback lb = new Loopback()) {
            long address = 0x7f12_3456_0000L;
            io.netty.buffer.ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
            MemoryRegion source = lb.server.pd.register(memory, Access.of(Access.REMOTE_READ), address);
            memory.release();
            fill(source, pattern(4096, 9));
            assertThat(source.advertise().taggedOffset()).isEqualTo(address);
            MemoryRegion sink = lb.client.allocate(100, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.read(1, ScatterGatherEntry.of(sink), source.stag(), address + 1000));
            assertThat(lb.client.nextSuccess().isSuccess()).isTrue();
            assertThat(contents(sink, 0, 100)).isEqualTo(java.util.Arrays.copyOfRange(pattern(4096, 9), 1000, 1100));
            source.close();
        }
    }

    @Test
    void rfc5040Section5_5Rule15CompletionsFollowPostingOrderEvenBehindARead() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion source = lb.server.allocate(2_000_000, Access.REMOTE_READ);
            MemoryRegion sink = lb.client.allocate(2_000_000, Access.LOCAL_WRITE);
            MemoryRegion recv = lb.server.allocate(64, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion small = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.read(10, ScatterGatherEntry.of(sink), source.advertise()));
            lb.client.qp.postSend(SendWorkRequest.send(11, ScatterGatherEntry.of(small)));
            lb.client.qp.postSend(SendWorkRequest.localInvalidate(12, sink.stag()));
            assertThat(lb.client.next().wrId()).isEqualTo(10);
            assertThat(lb.client.next().wrId()).isEqualTo(11);
            assertThat(lb.client.next().wrId()).isEqualTo(12);
            assertThat(sink.isValid()).isFalse();
        }
    }

    @Test
    void unsignaledRequestsCompleteSilentlyAndStillFreeTheirSlots() throws Exception {
        try (Loopback lb = new Loopback(io.softrdma.mpa.MpaSettings.defaults(), c -> c.withSendQueueDepth(4),
                c -> c)) {
            MemoryRegion target = lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            for (int i = 0; i < 100; i++) {
                SendWorkRequest w = SendWorkRequest.write(i, target.advertise(), ScatterGatherEntry.of(src));
                boolean last = i % 4 == 3;
                lb.client.qp.postSend(last ? w : w.unsignaled());
                if (last) {
                    assertThat(lb.client.next().wrId()).isEqualTo(i);
                }
            }
            assertThat(lb.client.cq.poll()).isNull();
        }
    }

    @Test
    void reregistrationGivesANewKeyAndTheOldStagStaysInvalid() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion region = lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            int old = region.stag();
            region.invalidate();
            int fresh = region.reregister();
            assertThat(fresh).isNotEqualTo(old);
            assertThat(fresh >>> 8).as("same index").isEqualTo(old >>> 8);
            assertThat(region.isValid()).isTrue();
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.write(1, fresh, 0, ScatterGatherEntry.of(src)));
            assertThat(lb.client.nextSuccess().isSuccess()).isTrue();
            lb.client.qp.postSend(SendWorkRequest.write(2, old, 0, ScatterGatherEntry.of(src)));
            // The Write is written to TCP (success), then the peer terminates with "invalid STag".
            lb.client.next();
            Throwable t = failure(lb.client.qp);
            assertThat(t).isInstanceOf(TerminateException.class);
            assertThat(((TerminateException) t).code().name()).isEqualTo("TAGGED_INVALID_STAG");
        }
    }

    @Test
    void gracefulCloseCarriesOutPostedWorkThenFlushesReceives() throws Exception {
        try (Loopback lb = new Loopback()) {
            MemoryRegion recv = lb.client.allocate(64, Access.LOCAL_WRITE);
            lb.client.qp.postReceive(ReceiveWorkRequest.of(5, ScatterGatherEntry.of(recv)));
            MemoryRegion target = lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion src = lb.client.allocate(64, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.write(6, target.advertise(), ScatterGatherEntry.of(src)));
            lb.client.qp.close();
            assertThatThrownBy(() -> lb.client.qp.postSend(SendWorkRequest.send(7)))
                    .isInstanceOf(IllegalStateException.class);
            Set<String> seen = new HashSet<>();
            seen.add(lb.client.next().copy().toString().replaceAll(" bytes=\\d+", ""));
            seen.add(lb.client.next().copy().toString().replaceAll(" bytes=\\d+", ""));
            assertThat(seen).containsExactlyInAnyOrder("WorkCompletion{wrId=6 RDMA_WRITE SUCCESS qp=1}",
                    "WorkCompletion{wrId=5 RECEIVE FLUSHED qp=1}");
            lb.client.qp.closeFuture().get(5, TimeUnit.SECONDS);
            assertThat(lb.client.qp.state()).isEqualTo(QueuePairState.ERROR);
        }
    }

    /**
     * A completion callback that posts again is the usual way to keep a pipeline full; if a post could
     * run it inside the poster's own call, the poster's loop would be re-entered half way through.
     */
    @Test
    void aPostNeverCallsBackInsideTheCallEvenOnTheEventLoop() throws Exception {
        try (Loopback lb = new Loopback()) {
            int sends = 100;
            postEightOctetReceives(lb.server, sends);
            MemoryRegion src = lb.client.allocate(8, Access.LOCAL_WRITE);
            QueuePair qp = lb.client.qp;
            CompletionQueue cq = lb.client.cq;
            AtomicBoolean inPost = new AtomicBoolean();
            AtomicInteger reentered = new AtomicInteger();
            AtomicInteger completed = new AtomicInteger();
            CompletableFuture<Void> all = new CompletableFuture<>();
            IntConsumer[] post = new IntConsumer[1];
            post[0] = i -> {
                inPost.set(true);
                try {
                    qp.postSend(SendWorkRequest.send(i, ScatterGatherEntry.of(src)));
                } finally {
                    inPost.set(false);
                }
            };
            cq.setListener(q -> {
                if (inPost.get()) {
                    reentered.incrementAndGet();
                }
                while (q.poll(c -> {
                    if (completed.incrementAndGet() == sends) {
                        all.complete(null);
                    } else {
                        post[0].accept((int) c.wrId() + 1);
                    }
                }, 16) > 0) {
                    // keep polling
                }
                q.requestNotification(false);
            });
            cq.requestNotification(false);
            // From a task on the event loop, outside any callback: where a post could run the engine inline.
            lb.client.connection.channel().eventLoop().execute(() -> post[0].accept(0));
            all.get(10, TimeUnit.SECONDS);
            assertThat(reentered).as("completion callbacks run inside postSend").hasValue(0);
            assertThat(completed).hasValue(sends);
        }
    }

    @Test
    void postingFromManyThreadsLosesNothing() throws Exception {
        int threads = 8;
        int perThread = 500;
        try (Loopback lb = new Loopback(io.softrdma.mpa.MpaSettings.defaults(),
                c -> c.withSendQueueDepth(threads * perThread), c -> c.withReceiveQueueDepth(threads * perThread))) {
            MemoryRegion recv = lb.server.allocate(8 * threads * perThread, Access.LOCAL_WRITE);
            for (int i = 0; i < threads * perThread; i++) {
                lb.server.qp.postReceive(ReceiveWorkRequest.of(i, new ScatterGatherEntry(recv, 8L * i, 8)));
            }
            MemoryRegion src = lb.client.allocate(8 * threads * perThread, Access.LOCAL_WRITE);
            List<Thread> posters = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                Thread p = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = base; i < base + perThread; i++) {
                        src.buffer().setLong(8 * i, i);
                        lb.client.qp.postSend(SendWorkRequest.send(i, new ScatterGatherEntry(src, 8L * i, 8)));
                    }
                });
                p.start();
                posters.add(p);
            }
            go.countDown();
            for (Thread p : posters) {
                p.join();
            }
            Set<Long> sent = new HashSet<>();
            for (int i = 0; i < threads * perThread; i++) {
                WorkCompletion c = lb.client.next();
                assertThat(c.isSuccess()).isTrue();
                sent.add(c.wrId());
            }
            assertThat(sent).hasSize(threads * perThread);
            Set<Long> values = new HashSet<>();
            for (int i = 0; i < threads * perThread; i++) {
                WorkCompletion c = lb.server.next();
                assertThat(c.wrId()).as("receives complete in order").isEqualTo(i);
                values.add(recv.buffer().getLong(8 * i));
            }
            assertThat(values).hasSize(threads * perThread);
        }
    }

    /**
     * Posts made inside the engine (a completion callback on the event loop) go straight into the send ring,
     * while another thread's posts go through the posted queue: each poster's Sends still arrive in its own order
     * (RFC 5040 §5.5 rule 13), none waits for a later event, and a callback's post never overtakes one queued
     * before it.
     */
    @Test
    void rfc5040Section5_5Rule13PostsFromCallbacksAndFromAnotherThreadEachKeepTheirOrder() throws Exception {
        int each = 300;
        try (Loopback lb = new Loopback(io.softrdma.mpa.MpaSettings.defaults(), c -> c.withSendQueueDepth(2 * each),
                c -> c.withReceiveQueueDepth(2 * each))) {
            MemoryRegion recv = lb.server.allocate(8 * 2 * each, Access.LOCAL_WRITE);
            for (int i = 0; i < 2 * each; i++) {
                lb.server.qp.postReceive(ReceiveWorkRequest.of(i, new ScatterGatherEntry(recv, 8L * i, 8)));
            }
            MemoryRegion src = lb.client.allocate(8 * 2 * each, Access.LOCAL_WRITE);
            for (int i = 0; i < 2 * each; i++) {
                src.buffer().setLong(8 * i, i);
            }
            AtomicInteger callbackPosts = new AtomicInteger();
            AtomicInteger completed = new AtomicInteger();
            lb.client.cq.setListener(q -> q.drainAndRearm(c -> {
                completed.incrementAndGet();
                // Each of the other thread's Sends, once complete, makes the callback post one of its own.
                if (c.wrId() < each) {
                    int i = each + callbackPosts.getAndIncrement();
                    lb.client.qp.postSend(SendWorkRequest.send(i, new ScatterGatherEntry(src, 8L * i, 8)));
                }
            }));
            lb.client.cq.requestNotification(false);
            for (int i = 0; i < each; i++) {
                lb.client.qp.postSend(SendWorkRequest.send(i, new ScatterGatherEntry(src, 8L * i, 8)));
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> completed.get() == 2 * each);
            List<Long> fromThread = new ArrayList<>();
            List<Long> fromCallbacks = new ArrayList<>();
            for (int i = 0; i < 2 * each; i++) {
                assertThat(lb.server.nextSuccess().wrId()).as("receives complete in order").isEqualTo(i);
                long value = recv.buffer().getLong(8 * i);
                (value < each ? fromThread : fromCallbacks).add(value);
            }
            assertThat(fromThread).hasSize(each).isSorted();
            assertThat(fromCallbacks).hasSize(each).isSorted();
            lb.assertNoTerminate();
        }
    }

    @Test
    void postingBeyondTheSendQueueDepthFailsFast() throws Exception {
        try (Loopback lb = new Loopback(io.softrdma.mpa.MpaSettings.defaults(), c -> c.withSendQueueDepth(2),
                c -> c)) {
            // No receive posted on the server, so the Sends stay outstanding? They complete when written:
            // use Reads from a peer region instead, which wait for responses.
            MemoryRegion source = lb.server.allocate(8, Access.REMOTE_READ);
            MemoryRegion sink = lb.client.allocate(8, Access.LOCAL_WRITE);
            assertThatThrownBy(() -> {
                for (int i = 0; i < 1000; i++) {
                    lb.client.qp.postSend(SendWorkRequest.read(i, ScatterGatherEntry.of(sink), source.advertise()));
                }
            }).isInstanceOf(IllegalStateException.class).hasMessageContaining("send queue full: 2");
        }
    }

    static Throwable failure(QueuePair qp) throws Exception {
        try {
            qp.closeFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError("the queue pair closed normally");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    /** Posts {@code n} receives of 8 octets each, side by side in one region (work request ids 0 to n - 1). */
    private static void postEightOctetReceives(Loopback.Side side, int n) {
        MemoryRegion recv = side.allocate(8 * n, Access.LOCAL_WRITE);
        for (int i = 0; i < n; i++) {
            side.qp.postReceive(ReceiveWorkRequest.of(i, new ScatterGatherEntry(recv, 8L * i, 8)));
        }
    }
}
