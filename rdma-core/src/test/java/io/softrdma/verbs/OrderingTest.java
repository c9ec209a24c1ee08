package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBufUtil;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapOpcode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 5040 §5.5 "Ordering and Completions" (rules 1-20) and Appendix B "Ordering and Completion Table"
 * (Figure 17), one test per testable rule and per row.
 *
 * <p>End-to-end behaviour is checked between two queue pairs over loopback ({@link Loopback}); where the
 * rule is about what goes on the wire, or needs the peer to hold back or split a message, a raw MPA peer
 * ({@link RawPeer}) plays the other end, byte for byte, against the queue pair under test (the MPA
 * responder).
 *
 * <p>Rules not tested, because they grant a permission or deny a guarantee, so no behaviour can break
 * them:
 * <ul>
 *   <li>1 (no ordering across RDMAP Streams) and 2 (no ordering between the two directions of a stream);
 *   <li>3 (Tagged and Untagged Messages MAY be Placed in any order);
 *   <li>4 and 6 (buffer contents MAY be indeterminate until Delivery): what they imply, that the
 *       contents are the message's once it is Delivered, is checked by the tests of rules 10, 16 and
 *       19;
 *   <li>7 and 8 (the application modifying buffers in use gives indeterminate results);
 *   <li>9 (a local Send or Write Completion does not guarantee remote Placement);
 *   <li>18 (Sends MAY be Completed at the Data Sink before earlier Read Requests are answered).
 * </ul>
 * Rule 5 is a permission too, but with rule 10's note it promises that a Write is Placed once a later
 * Send is Delivered, which is tested. The rows of Figure 17 that promise no Placement order
 * (Send/Send, Send/Write, Write/Send, Write/Write) are tested through their footnote 1: a Read issued
 * after them and waited for acts as a Fence. The Read/Send and Read/Write rows through footnote 2:
 * waiting for the Read's Completion before the Send or Write.
 *
 * <p>That a completion did not happen is checked on the queue pair's event loop, which makes the
 * completions, after an event that would have made it: the peer received what was sent after it, or
 * the queue pair counted the segment it must not complete on ({@link QueuePairCounters}), or the channel
 * stopped taking writes. No test waits a fixed time for something not to happen.
 */
class OrderingTest {
    private static final byte[] EMPTY = new byte[0];

    // RDMAP opcodes (RFC 5040 §4.2 Figure 4)
    private static final int WRITE = 0;
    private static final int READ_REQUEST = 1;
    private static final int READ_RESPONSE = 2;
    private static final int SEND = 3;
    private static final int SEND_SE = 5;

    // The raw-peer fixture, created by connectRaw() only in the tests that use it.
    private ConnectionManager cm;
    private RdmaDevice device;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private RdmaConnection connection;
    private RdmaListener listener;
    private RawPeer peer;
    /** The MSN of the next Read Request the raw peer sends (RFC 5041 §5.3: the first is 1). */
    private int peerReadMsn = 1;

    @AfterEach
    void tearDown() throws Exception {
        try {
            if (peer != null) {
                peer.close();
            }
            if (qp != null) {
                qp.close();
                qp.closeFuture().handle((v, e) -> null).get(5, TimeUnit.SECONDS);
            }
        } finally {
            if (listener != null) {
                listener.close();
            }
            if (cm != null) {
                cm.close();
            }
            if (pd != null) {
                pd.close();
            }
        }
    }

    // =====================================================================================================
    // §5.5 rules
    // =====================================================================================================

    /** Rule 5 with rule 10's note: when a Send is Delivered, the RDMA Writes before it are Placed. */
    @Test
    void rfc5040Section5_5Rule5WriteIsPlacedOnceALaterSendIsDelivered() throws Exception {
        try (Loopback lb = new Loopback()) {
            int size = 300_000;
            MemoryRegion target = lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion recv = lb.server.allocate(8, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion a = filled(lb.client, 100_000, 1);
            MemoryRegion b = filled(lb.client, 150_000, 2);
            MemoryRegion c = filled(lb.client, 50_000, 3);
            MemoryRegion note = filled(lb.client, 8, 4);
            lb.client.qp.postSend(SendWorkRequest.write(2, target.advertise(), ScatterGatherEntry.of(a),
                    ScatterGatherEntry.of(b), ScatterGatherEntry.of(c)));
            lb.client.qp.postSend(SendWorkRequest.send(3, ScatterGatherEntry.of(note)));

            WorkCompletion delivered = lb.server.nextSuccess();
            assertThat(delivered.wrId()).isEqualTo(1);
            // Read at once, before anything else happens at the server.
            assertSameBytes("the Write's target when the later Send is Delivered",
                    concat(pattern(100_000, 1), pattern(150_000, 2), pattern(50_000, 3)), contents(target, 0, size));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(2);
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(3);
        }
    }

    /**
     * Rule 10: Sends are Delivered in the order they were sent (so each lands in the receive posted for
     * it, here of exactly its size), including Sends of many segments.
     */
    @Test
    void rfc5040Section5_5Rule10SendsAreDeliveredInOrder() throws Exception {
        int[] sizes = {100_000, 0, 1, 64_750, 64_751, 200_000, 7, 129_501, 3, 150_000};
        try (Loopback lb = new Loopback()) {
            MemoryRegion[] recv = new MemoryRegion[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                recv[i] = lb.server.allocate(Math.max(1, sizes[i]), Access.LOCAL_WRITE);
                lb.server.qp.postReceive(ReceiveWorkRequest.of(100 + i, new ScatterGatherEntry(recv[i], 0, sizes[i])));
            }
            for (int i = 0; i < sizes.length; i++) {
                MemoryRegion src = filled(lb.client, Math.max(1, sizes[i]), 10 + i);
                lb.client.qp.postSend(SendWorkRequest.send(i, new ScatterGatherEntry(src, 0, sizes[i])));
            }
            for (int i = 0; i < sizes.length; i++) {
                WorkCompletion r = lb.server.nextSuccess();
                assertThat(r.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
                assertThat(r.wrId()).as("receive %d", i).isEqualTo(100 + i);
                assertThat(r.byteLength()).as("receive %d", i).isEqualTo(sizes[i]);
                assertSameBytes("receive " + i, Arrays.copyOf(pattern(Math.max(1, sizes[i]), 10 + i), sizes[i]),
                        contents(recv[i], 0, sizes[i]));
            }
            for (int i = 0; i < sizes.length; i++) {
                assertThat(lb.client.nextSuccess().wrId()).isEqualTo(i);
            }
        }
    }

    /** Rule 11: Read Responses are Delivered in the order they arrive; each Read gets its own data. */
    @Test
    void rfc5040Section5_5Rule11ReadResponsesAreDeliveredInOrder() throws Exception {
        int[] sizes = {300_000, 0, 1, 70_000, 64_754, 64_755, 5};
        try (Loopback lb = new Loopback()) {
            MemoryRegion[] sinks = new MemoryRegion[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                MemoryRegion source = lb.server.pd.allocate(Math.max(1, sizes[i]), Access.of(Access.REMOTE_READ));
                fill(source, pattern(Math.max(1, sizes[i]), 20 + i));
                sinks[i] = lb.client.allocate(Math.max(1, sizes[i]), Access.LOCAL_WRITE);
                lb.client.qp.postSend(SendWorkRequest.read(i, new ScatterGatherEntry(sinks[i], 0, sizes[i]),
                        source.advertise().slice(0, sizes[i])));
            }
            for (int i = 0; i < sizes.length; i++) {
                WorkCompletion r = lb.client.nextSuccess();
                assertThat(r.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(r.wrId()).as("Read %d", i).isEqualTo(i);
                assertThat(r.byteLength()).as("Read %d", i).isEqualTo(sizes[i]);
                assertSameBytes("sink " + i, Arrays.copyOf(pattern(Math.max(1, sizes[i]), 20 + i), sizes[i]),
                        contents(sinks[i], 0, sizes[i]));
            }
        }
    }

    /**
     * Rule 12: a Read Request, even a zero-length one, is not processed before it is Delivered, after
     * everything the peer sent before it: its Read Response comes only after the Send sent before it
     * was Delivered.
     */
    @Test
    void rfc5040Section5_5Rule12AZeroLengthReadRequestIsAnsweredOnlyAfterTheEarlierSendIsDelivered()
            throws Exception {
        connectRaw(UnaryOperator.identity());
        MemoryRegion recv = pd.allocate(200_000, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
        byte[] data = pattern(150_000, 30);
        List<byte[]> ulpdus = new ArrayList<>(sendSegments(SEND, 1, data, 60_000));
        ulpdus.add(readRequest(peerReadMsn++, 0x0000d001, 0x40, 0, 0, 0));
        peer.sendAll(ulpdus.toArray(byte[][]::new));

        Seg response = Seg.of(peer.nextUlpdu(5));
        assertThat(response.opcode()).isEqualTo(READ_RESPONSE);
        assertThat(response.stag()).isEqualTo(0x0000d001);
        assertThat(response.last()).isTrue();
        WorkCompletion receive = cq.poll();
        assertThat(receive).as("the Send before the Read Request was Delivered when the Read Response was sent")
                .isNotNull();
        assertThat(receive.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
        assertThat(receive.isSuccess()).isTrue();
        assertThat(receive.byteLength()).isEqualTo(data.length);
        assertSameBytes("the receive", data, contents(recv, 0, data.length));
    }

    /**
     * Rule 13: RDMA Messages are submitted in posting order. Send, Write, Read, Send (of one, two, one
     * and one segments or more) reach the peer in that order, whole, with the Sends on QN 0 as MSN 1
     * and 2 and the Read Request on QN 1 as MSN 1. The peer answers the Read as soon as it sees the
     * Request, so the test holds whether or not the queue pair fences the last Send behind the Read.
     */
    @Test
    void rfc5040Section5_5Rule13MessagesGoToTheWireInPostingOrder() throws Exception {
        connectRaw(UnaryOperator.identity());
        openResponder();
        int untagged = connection.negotiation().mulpdu() - UntaggedHeaderCodec.LENGTH;
        int tagged = connection.negotiation().mulpdu() - TaggedHeaderCodec.LENGTH;
        byte[] first = pattern(2 * untagged + 1000, 40);
        byte[] written = pattern(tagged + 500, 41);
        byte[] last = pattern(10, 42);
        MemoryRegion s1 = filled(first);
        MemoryRegion w = filled(written);
        MemoryRegion sink = pd.allocate(64, Access.of(Access.LOCAL_WRITE));
        MemoryRegion s2 = filled(last);
        qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(s1)));
        qp.postSend(SendWorkRequest.write(2, 0x00aa0001, 0x1000, ScatterGatherEntry.of(w)));
        qp.postSend(SendWorkRequest.read(3, ScatterGatherEntry.of(sink), 0x00bb0002, 0x2000));
        qp.postSend(SendWorkRequest.send(4, ScatterGatherEntry.of(s2)).withSolicitedEvent());

        List<List<Seg>> messages = new ArrayList<>();
        List<Seg> current = new ArrayList<>();
        while (messages.size() < 4) {
            Seg s = Seg.of(peer.nextUlpdu(5));
            current.add(s);
            if (s.opcode() == READ_REQUEST) {
                peer.sendAll(tagged(READ_RESPONSE, true, s.sinkStag(), s.sinkTo(), pattern(64, 43)));
            }
            if (s.last()) {
                messages.add(current);
                current = new ArrayList<>();
            }
        }
        assertThat(messages.stream().map(m -> m.get(0).opcode()).toList()).as("message order on the wire")
                .containsExactly(SEND, WRITE, READ_REQUEST, SEND_SE);
        for (List<Seg> m : messages) {
            assertThat(m).as("the segments of one message do not interleave with another's")
                    .allSatisfy(s -> assertThat(s.opcode()).isEqualTo(m.get(0).opcode()));
        }
        assertUntaggedMessage(messages.get(0), 0, 1, first);
        List<Seg> write = messages.get(1);
        assertThat(write).hasSize(2);
        long to = 0x1000;
        for (Seg s : write) {
            assertThat(s.tagged()).isTrue();
            assertThat(s.stag()).isEqualTo(0x00aa0001);
            assertThat(s.to()).isEqualTo(to);
            to += s.payload().length;
        }
        assertSameBytes("the Write on the wire", written, concat(write.stream().map(Seg::payload).toList()));
        Seg rr = messages.get(2).get(0);
        assertThat(rr.qn()).isEqualTo(1);
        assertThat(rr.msn()).isEqualTo(1);
        assertThat(rr.sinkStag()).isEqualTo(sink.stag());
        assertThat(rr.readSize()).isEqualTo(64);
        assertThat(rr.sourceStag()).isEqualTo(0x00bb0002);
        assertThat(rr.sourceTo()).isEqualTo(0x2000);
        assertUntaggedMessage(messages.get(3), 0, 2, last);

        for (int i = 1; i <= 4; i++) {
            WorkCompletion c = cq.take(Duration.ofSeconds(5));
            assertThat(c).isNotNull();
            assertThat(c.isSuccess()).as("%s", c).isTrue();
            assertThat(c.wrId()).isEqualTo(i);
        }
    }

    /**
     * Rule 14: a Send is not Complete until DDP (here TCP) has taken it. The peer stops reading; Sends
     * are posted on the queue pair's event loop, one task each, so that each is emitted and flushed
     * before the next, until the channel holds octets that TCP did not take, and then a hundred more
     * (which stay below the channel's high-water mark, so they are all emitted): the last of them is some 800 KB behind what TCP took and
     * must not complete. Once the peer reads again, every Send completes, in posting order (rule 15) —
     * which also needs more flushes awaiting TCP at once than a small fixed table of them would hold.
     */
    @Test
    void rfc5040Section5_5Rule14ASendIsNotCompleteBeforeTcpTookIt() throws Exception {
        connectRaw(c -> c.withSendQueueDepth(8192));
        openResponder();
        peer.pauseReading();
        int length = 8192;
        MemoryRegion src = pd.allocate(length, Access.of(Access.LOCAL_WRITE));
        io.netty.channel.Channel channel = connection.channel();
        io.netty.channel.EventLoop loop = channel.eventLoop();
        int n = 0;
        int stalledAt = -1;
        while (n < 8192 && (stalledAt < 0 || n < stalledAt + 100)) {
            int id = n;
            loop.submit(() -> qp.postSend(SendWorkRequest.send(id, ScatterGatherEntry.of(src)))).get(10,
                    TimeUnit.SECONDS);
            n++;
            // Tasks run in order: the task that carries the post out has run before this one.
            boolean backedUp = loop.submit(() -> channel.unsafe().outboundBuffer().totalPendingWriteBytes() > 0)
                    .get(10, TimeUnit.SECONDS);
            if (stalledAt < 0 && backedUp) {
                stalledAt = n - 1;
            }
        }
        int[] counts = {n, stalledAt, loop.submit(channel::isWritable).get(10, TimeUnit.SECONDS) ? 1 : 0};
        int posted = counts[0];
        assertThat(counts[1]).as("TCP backed up before 64 MiB were sent").isNotNegative();
        assertThat(counts[2]).as("the channel stayed writable, so every Send was emitted").isEqualTo(1);
        // On the event loop, where writes are handed to TCP and Sends complete: the channel still holds
        // octets TCP did not take, the last Send's among them, so it cannot have completed.
        long[] pendingAndCompleted = onLoop(
                () -> new long[] {channel.unsafe().outboundBuffer().totalPendingWriteBytes(), cq.size()});
        assertThat(pendingAndCompleted[0]).as("octets TCP did not take").isPositive();
        assertThat(pendingAndCompleted[1]).as("completions of %d Sends, the last 100 of which TCP could not take",
                posted).isLessThan(posted);

        peer.resumeReading();
        long payload = 0;
        while (payload < (long) posted * length) {
            payload += Seg.of(peer.nextUlpdu(10)).payload().length;
        }
        for (int i = 0; i < posted; i++) {
            WorkCompletion c = cq.take(Duration.ofSeconds(5));
            assertThat(c).as("completion of Send %d of %d, all of which the peer received", i, posted).isNotNull();
            assertThat(c.isSuccess()).isTrue();
            assertThat(c.wrId()).isEqualTo(i);
        }
    }

    /**
     * Rule 14 for a Write larger than what TCP and the channel can buffer: the peer stops reading, so TCP
     * cannot take 32 MiB; no completion may appear until the peer reads again, and then the Write must be
     * sent whole and complete.
     */
    @Test
    void rfc5040Section5_5Rule14AWriteIsNotCompleteBeforeTcpTookItsLastSegment() throws Exception {
        connectRaw(UnaryOperator.identity());
        openResponder();
        peer.pauseReading();
        int size = 32 << 20;
        MemoryRegion src = pd.allocate(size, Access.of(Access.LOCAL_WRITE));
        qp.postSend(SendWorkRequest.write(1, 0x00cc0003, 0, ScatterGatherEntry.of(src)));
        io.netty.channel.Channel channel = connection.channel();
        await("the sender stalls: the channel no longer takes writes").atMost(Duration.ofSeconds(10))
                .until(() -> onLoop(() -> !channel.isWritable()));
        assertNoCompletion("a completion while TCP cannot have taken the Write");

        peer.resumeReading();
        long payload = 0;
        while (payload < size) {
            byte[] u = peer.received.poll(5, TimeUnit.SECONDS);
            assertThat(u).as("the rest of the Write after %d of %d octets", payload, size).isNotNull();
            Seg s = Seg.of(u);
            assertThat(s.opcode()).isEqualTo(WRITE);
            payload += s.payload().length;
        }
        assertThat(payload).isEqualTo(size);
        WorkCompletion c = cq.take(Duration.ofSeconds(5));
        assertThat(c).as("the Write completes once written").isNotNull();
        assertThat(c.isSuccess()).isTrue();
        assertThat(c.byteLength()).isEqualTo(size);
    }

    /**
     * The same bug without a paused peer: over plain loopback, a Write of 3 MiB (more than the 2 MiB
     * high-water mark of the connection manager's channels) is never sent whole and never completes.
     */
    @Test
    void rfc5040Section5_5Rule14AWriteOfThreeMebibytesCompletesOverLoopback() throws Exception {
        try (Loopback lb = new Loopback()) {
            int size = 3 << 20;
            MemoryRegion target = lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion src = filled(lb.client, size, 55);
            lb.client.qp.postSend(SendWorkRequest.write(1, target.advertise(), ScatterGatherEntry.of(src)));
            WorkCompletion c = lb.client.nextSuccess();
            assertThat(c.byteLength()).isEqualTo(size);
            new Fence(lb).readAndWait(2);
            assertSameBytes("the Write", pattern(size, 55), contents(target, 0, size));
        }
    }

    /**
     * Rule 15: operations complete in posting order. Send, Write, local invalidate and Send posted after
     * a Read are all on the wire (so written to TCP) long before the peer answers the Read: none of them
     * may complete until the Read has.
     */
    @Test
    void rfc5040Section5_5Rule15NothingPostedAfterAReadCompletesBeforeIt() throws Exception {
        connectRaw(UnaryOperator.identity());
        openResponder();
        MemoryRegion sink = pd.allocate(100, Access.of(Access.LOCAL_WRITE));
        MemoryRegion src = filled(pattern(100, 50));
        MemoryRegion invalidated = pd.allocate(64, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        qp.postSend(SendWorkRequest.read(1, ScatterGatherEntry.of(sink), 0x00dd0004, 0));
        qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(src)));
        qp.postSend(SendWorkRequest.write(3, 0x00ee0005, 0, ScatterGatherEntry.of(src)));
        qp.postSend(SendWorkRequest.localInvalidate(4, invalidated.stag()));
        qp.postSend(SendWorkRequest.send(5, ScatterGatherEntry.of(src)));

        Seg rr = Seg.of(peer.nextUlpdu(5));
        assertThat(rr.opcode()).isEqualTo(READ_REQUEST);
        assertThat(Seg.of(peer.nextUlpdu(5)).msn()).isEqualTo(1);
        assertThat(Seg.of(peer.nextUlpdu(5)).opcode()).isEqualTo(WRITE);
        assertThat(Seg.of(peer.nextUlpdu(5)).msn()).isEqualTo(2);
        // The last Send is with the peer, so its flush has run: had anything completed, it would be there.
        assertNoCompletion("a completion before the Read's");

        peer.sendAll(tagged(READ_RESPONSE, true, rr.sinkStag(), rr.sinkTo(), pattern(100, 51)));
        WorkCompletionOpcode[] opcodes = {WorkCompletionOpcode.RDMA_READ, WorkCompletionOpcode.SEND,
                WorkCompletionOpcode.RDMA_WRITE, WorkCompletionOpcode.LOCAL_INVALIDATE, WorkCompletionOpcode.SEND};
        for (int i = 0; i < opcodes.length; i++) {
            WorkCompletion c = cq.take(Duration.ofSeconds(5));
            assertThat(c).isNotNull();
            assertThat(c.isSuccess()).as("%s", c).isTrue();
            assertThat(c.wrId()).isEqualTo(i + 1);
            assertThat(c.opcode()).isEqualTo(opcodes[i]);
        }
        assertThat(invalidated.isValid()).isFalse();
        assertSameBytes("the Read's sink", pattern(100, 51), contents(sink, 0, 100));
    }

    /**
     * Rule 16: a Send is Delivered (its receive completes) only when DDP has Delivered the whole
     * message: not after its first or second segment, only after its last.
     */
    @Test
    void rfc5040Section5_5Rule16ASendIsDeliveredOnlyAfterItsLastSegment() throws Exception {
        connectRaw(UnaryOperator.identity());
        MemoryRegion recv = pd.allocate(4096, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
        byte[] data = pattern(3000, 60);
        peer.sendAll(untagged(SEND, false, 0, 0, 1, 0, Arrays.copyOfRange(data, 0, 1000)));
        awaitInbound(RdmapOpcode.SEND, 1000);
        assertNoCompletion("a receive completion after the first of three segments");
        peer.sendAll(untagged(SEND, false, 0, 0, 1, 1000, Arrays.copyOfRange(data, 1000, 2000)));
        awaitInbound(RdmapOpcode.SEND, 2000);
        assertNoCompletion("a receive completion after the second of three segments");
        peer.sendAll(untagged(SEND, true, 0, 0, 1, 2000, Arrays.copyOfRange(data, 2000, 3000)));
        WorkCompletion c = cq.take(Duration.ofSeconds(5));
        assertThat(c).isNotNull();
        assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
        assertThat(c.isSuccess()).isTrue();
        assertThat(c.wrId()).isEqualTo(1);
        assertThat(c.byteLength()).isEqualTo(3000);
        assertSameBytes("the receive", data, contents(recv, 0, 3000));
    }

    /**
     * Rule 17 (and rule 12's note): the responder reads the source only after the Read Request is
     * Delivered, so after the Write sent before it is Placed: the Read Response carries the written
     * data, although Write and Request arrive back to back.
     */
    @Test
    void rfc5040Section5_5Rule17AReadRequestReadsWhatTheWriteBeforeItPlaced() throws Exception {
        connectRaw(UnaryOperator.identity());
        MemoryRegion target = pd.allocate(200_000, Access.all());
        byte[] data = pattern(150_000, 70);
        List<byte[]> ulpdus = new ArrayList<>();
        for (int off = 0; off < data.length; off += 60_000) {
            int end = Math.min(data.length, off + 60_000);
            ulpdus.add(tagged(WRITE, end == data.length, target.stag(), 1000 + off, Arrays.copyOfRange(data, off, end)));
        }
        ulpdus.add(readRequest(peerReadMsn++, 0x0000c001, 0, data.length, target.stag(), 1000));
        peer.sendAll(ulpdus.toArray(byte[][]::new));

        List<Seg> response = readResponse(0x0000c001, 0);
        assertSameBytes("the Read Response", data, concat(response.stream().map(Seg::payload).toList()));
    }

    /**
     * Rule 19 (and 6): a Read completes only when its whole Read Response is Delivered, and then its sink
     * holds the data. The peer holds back the response, then sends it in two segments.
     */
    @Test
    void rfc5040Section5_5Rule19AReadCompletesOnlyWhenItsResponseIsDelivered() throws Exception {
        connectRaw(UnaryOperator.identity());
        openResponder();
        int size = 100_000;
        MemoryRegion sink = pd.allocate(size + 20, Access.of(Access.LOCAL_WRITE));
        fill(sink, new byte[size + 20]);
        qp.postSend(SendWorkRequest.read(7, new ScatterGatherEntry(sink, 10, size), 0x00ab0006, 0x4000));
        Seg rr = Seg.of(peer.nextUlpdu(5));
        assertThat(rr.opcode()).isEqualTo(READ_REQUEST);
        assertThat(rr.readSize()).isEqualTo(size);
        // The Read Request is with the peer, so its flush has run.
        assertNoCompletion("a Read completion with no Read Response");

        byte[] data = pattern(size, 80);
        peer.sendAll(tagged(READ_RESPONSE, false, rr.sinkStag(), rr.sinkTo(), Arrays.copyOfRange(data, 0, 60_000)));
        awaitInbound(RdmapOpcode.RDMA_READ_RESPONSE, 60_000);
        assertNoCompletion("a Read completion after part of its Read Response");
        peer.sendAll(tagged(READ_RESPONSE, true, rr.sinkStag(), rr.sinkTo() + 60_000,
                Arrays.copyOfRange(data, 60_000, size)));
        WorkCompletion c = cq.take(Duration.ofSeconds(5));
        assertThat(c).isNotNull();
        assertThat(c.wrId()).isEqualTo(7);
        assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
        assertThat(c.isSuccess()).isTrue();
        assertThat(c.byteLength()).isEqualTo(size);
        byte[] expected = new byte[size + 20];
        System.arraycopy(data, 0, expected, 10, size);
        assertSameBytes("the sink, and nothing around it", expected, contents(sink, 0, size + 20));
    }

    /**
     * Rule 20: Read Responses are sent in the order their Read Requests arrived, each whole. Four
     * Requests arrive back to back: a large one (several segments), a zero-length one, a small one and
     * a medium one.
     */
    @Test
    void rfc5040Section5_5Rule20ReadResponsesAreSentInTheOrderOfTheirRequests() throws Exception {
        connectRaw(UnaryOperator.identity());
        byte[] data = pattern(300_000, 90);
        MemoryRegion source = filled(data, Access.REMOTE_READ);
        int[][] requests = { // sink STag, sink TO, size, source TO
            {0x0000a101, 0, 200_000, 0},
            {0x0000a102, 0x10, 0, 0},
            {0x0000a103, 0x20, 10, 7},
            {0x0000a104, 0x30, 70_000, 1234},
        };
        byte[][] ulpdus = new byte[requests.length][];
        for (int i = 0; i < requests.length; i++) {
            int[] r = requests[i];
            ulpdus[i] = readRequest(peerReadMsn++, r[0], r[1], r[2], source.stag(), r[3]);
        }
        peer.sendAll(ulpdus);
        for (int[] r : requests) {
            List<Seg> response = readResponse(r[0], r[1]);
            assertSameBytes("the Read Response to sink 0x" + Integer.toHexString(r[0]),
                    Arrays.copyOfRange(data, r[3], r[3] + r[2]), concat(response.stream().map(Seg::payload).toList()));
        }
    }

    /**
     * Rule 20 when Read Requests queue up: the peer stops reading and asks for 32 MiB, more than TCP and
     * the channel can hold, so the response is still being sent when three more Requests arrive; once the
     * peer reads again, the four responses come whole and in the order of the Requests.
     */
    @Test
    void rfc5040Section5_5Rule20ReadRequestsQueuedBehindALongResponseAreAnsweredInOrder() throws Exception {
        connectRaw(UnaryOperator.identity());
        int big = 32 << 20;
        MemoryRegion source = pd.allocate(big, Access.of(Access.REMOTE_READ));
        byte[] head = pattern(2000, 95);
        fill(source, head);
        peer.pauseReading();
        peer.sendAll(readRequest(peerReadMsn++, 0x0000a201, 0, big, source.stag(), 0));
        // The response has begun and backed up: the channel takes no more writes.
        io.netty.channel.Channel channel = connection.channel();
        await("the 32 MiB response under way and stalled").atMost(Duration.ofSeconds(10))
                .until(() -> onLoop(() -> qp.counters().octets(RdmapOpcode.RDMA_READ_RESPONSE, false) > 0
                        && !channel.isWritable()));
        int[][] requests = { // sink STag, sink TO, size, source TO
            {0x0000a202, 0x10, 10, 7},
            {0x0000a203, 0x20, 0, 0},
            {0x0000a204, 0x30, 1000, 900},
        };
        for (int[] r : requests) {
            peer.sendAll(readRequest(peerReadMsn++, r[0], r[1], r[2], source.stag(), r[3]));
        }
        // All four Requests arrived while the first response is still being sent: they queue behind it.
        await("the three later Read Requests received").atMost(Duration.ofSeconds(10))
                .until(() -> onLoop(() -> qp.counters().messages(RdmapOpcode.RDMA_READ_REQUEST, true)) == 4);
        assertThat(onLoop(() -> qp.counters().messages(RdmapOpcode.RDMA_READ_RESPONSE, false)))
                .as("Read Responses sent whole while the first is stalled").isZero();
        peer.resumeReading();

        long to = 0;
        while (true) {
            Seg s = Seg.of(peer.nextUlpdu(5));
            assertThat(s.opcode()).isEqualTo(READ_RESPONSE);
            assertThat(s.stag()).as("the 32 MiB response comes whole first, not %s", s).isEqualTo(0x0000a201);
            assertThat(s.to()).isEqualTo(to);
            to += s.payload().length;
            if (s.last()) {
                break;
            }
        }
        assertThat(to).isEqualTo(big);
        for (int[] r : requests) {
            List<Seg> response = readResponse(r[0], r[1]);
            assertSameBytes("the Read Response to sink 0x" + Integer.toHexString(r[0]),
                    Arrays.copyOfRange(head, r[3], r[3] + r[2]), concat(response.stream().map(Seg::payload).toList()));
        }
    }

    // =====================================================================================================
    // Appendix B, Figure 17: one test per row (first operation / later operation)
    // =====================================================================================================

    /**
     * Send / Send: "Completed in order" at the Remote Peer, for every kind of Send (Send, with Solicited
     * Event, with Invalidate, with both).
     */
    @Test
    void appendixBSendThenSendAreCompletedInOrderAtTheRemotePeer() throws Exception {
        try (Loopback lb = new Loopback()) {
            int n = 8;
            int[] sizes = {70_000, 1, 0, 130_000, 5, 64_750, 64_751, 2};
            MemoryRegion[] recv = new MemoryRegion[n];
            MemoryRegion[] advertised = new MemoryRegion[n];
            for (int i = 0; i < n; i++) {
                recv[i] = lb.server.allocate(Math.max(1, sizes[i]), Access.LOCAL_WRITE);
                advertised[i] = lb.server.allocate(16, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
                lb.server.qp.postReceive(ReceiveWorkRequest.of(100 + i, new ScatterGatherEntry(recv[i], 0, sizes[i])));
            }
            for (int i = 0; i < n; i++) {
                MemoryRegion src = filled(lb.client, Math.max(1, sizes[i]), 110 + i);
                SendWorkRequest wr = SendWorkRequest.send(i, new ScatterGatherEntry(src, 0, sizes[i]));
                if ((i & 1) != 0) {
                    wr = wr.withSolicitedEvent();
                }
                if ((i & 2) != 0) {
                    wr = wr.withInvalidate(advertised[i].stag());
                }
                lb.client.qp.postSend(wr);
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion r = lb.server.nextSuccess();
                assertThat(r.wrId()).as("receive %d", i).isEqualTo(100 + i);
                assertThat(r.byteLength()).isEqualTo(sizes[i]);
                assertThat(r.solicited()).as("solicited, receive %d", i).isEqualTo((i & 1) != 0);
                assertThat(r.invalidated()).as("invalidated, receive %d", i).isEqualTo((i & 2) != 0);
                if ((i & 2) != 0) {
                    assertThat(r.invalidatedStag()).isEqualTo(advertised[i].stag());
                    assertThat(advertised[i].isValid()).isFalse();
                } else {
                    assertThat(advertised[i].isValid()).isTrue();
                }
                assertSameBytes("receive " + i, Arrays.copyOf(pattern(Math.max(1, sizes[i]), 110 + i), sizes[i]),
                        contents(recv[i], 0, sizes[i]));
            }
            for (int i = 0; i < n; i++) {
                assertThat(lb.client.nextSuccess().wrId()).isEqualTo(i);
            }
        }
    }

    /** Send / RDMA Write, footnote 1: once a later Read completed, both are Placed (the Send Delivered). */
    @Test
    void appendixBSendThenWriteArePlacedOnceAFencingReadCompleted() throws Exception {
        try (Loopback lb = new Loopback()) {
            Fence fence = new Fence(lb);
            MemoryRegion recv = lb.server.allocate(200_000, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion target = lb.server.allocate(200_000, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion sent = filled(lb.client, 200_000, 120);
            MemoryRegion written = filled(lb.client, 200_000, 121);
            lb.client.qp.postSend(SendWorkRequest.send(10, ScatterGatherEntry.of(sent)));
            lb.client.qp.postSend(SendWorkRequest.write(11, target.advertise(), ScatterGatherEntry.of(written)));
            fence.readAndWait(12, 10, 11);

            WorkCompletion r = lb.server.cq.poll();
            assertThat(r).as("the Send was Delivered before the fencing Read was answered").isNotNull();
            assertThat(r.isSuccess()).isTrue();
            assertThat(r.byteLength()).isEqualTo(200_000);
            assertSameBytes("the Send", pattern(200_000, 120), contents(recv, 0, 200_000));
            assertSameBytes("the Write", pattern(200_000, 121), contents(target, 0, 200_000));
        }
    }

    /**
     * Send / RDMA Read: the Read Response is not generated until the Send was Completed at the Remote
     * Peer. The raw peer sends a Send (three segments) and a Read Request back to back; when the Read
     * Response arrives, the queue pair under test has completed the receive.
     */
    @Test
    void appendixBSendThenReadResponseIsNotGeneratedBeforeTheSendCompleted() throws Exception {
        connectRaw(UnaryOperator.identity());
        MemoryRegion recv = pd.allocate(200_000, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
        byte[] source = pattern(16, 130);
        MemoryRegion src = filled(source, Access.REMOTE_READ);
        byte[] data = pattern(150_000, 131);
        List<byte[]> ulpdus = new ArrayList<>(sendSegments(SEND, 1, data, 60_000));
        ulpdus.add(readRequest(peerReadMsn++, 0x0000b001, 0, 16, src.stag(), 0));
        peer.sendAll(ulpdus.toArray(byte[][]::new));

        Seg response = Seg.of(peer.nextUlpdu(5));
        WorkCompletion receive = cq.poll();
        assertThat(response.opcode()).isEqualTo(READ_RESPONSE);
        assertThat(response.last()).isTrue();
        assertThat(response.payload()).isEqualTo(source);
        assertThat(receive).as("the RECEIVE had completed when the Read Response arrived").isNotNull();
        assertThat(receive.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
        assertThat(receive.isSuccess()).isTrue();
        assertThat(receive.byteLength()).isEqualTo(data.length);
        assertSameBytes("the receive", data, contents(recv, 0, data.length));
    }

    /**
     * Send / RDMA Read, end to end: the Read Response's payload is not Placed at the local peer before
     * the Send's payload is Placed at the remote one — a Read of the receive buffer returns what the Send
     * put there.
     */
    @Test
    void appendixBSendThenReadOfTheReceiveBufferReturnsTheSentData() throws Exception {
        try (Loopback lb = new Loopback()) {
            int size = 150_000;
            MemoryRegion recv = lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_READ);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion sent = filled(lb.client, size, 140);
            MemoryRegion sink = lb.client.allocate(size, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(sent)));
            lb.client.qp.postSend(SendWorkRequest.read(3, ScatterGatherEntry.of(sink), recv.advertise()));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(2);
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(3);
            assertSameBytes("what the Read returned", pattern(size, 140), contents(sink, 0, size));
            assertThat(lb.server.nextSuccess().wrId()).isEqualTo(1);
        }
    }

    /** RDMA Write / Send, footnote 1: once a later Read completed, both are Placed (the Send Delivered). */
    @Test
    void appendixBWriteThenSendArePlacedOnceAFencingReadCompleted() throws Exception {
        try (Loopback lb = new Loopback()) {
            Fence fence = new Fence(lb);
            MemoryRegion target = lb.server.allocate(200_000, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion recv = lb.server.allocate(200_000, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion written = filled(lb.client, 200_000, 150);
            MemoryRegion sent = filled(lb.client, 200_000, 151);
            lb.client.qp.postSend(SendWorkRequest.write(10, target.advertise(), ScatterGatherEntry.of(written)));
            lb.client.qp.postSend(SendWorkRequest.send(11, ScatterGatherEntry.of(sent)));
            fence.readAndWait(12, 10, 11);

            WorkCompletion r = lb.server.cq.poll();
            assertThat(r).as("the Send was Delivered before the fencing Read was answered").isNotNull();
            assertThat(r.isSuccess()).isTrue();
            assertSameBytes("the Write", pattern(200_000, 150), contents(target, 0, 200_000));
            assertSameBytes("the Send", pattern(200_000, 151), contents(recv, 0, 200_000));
        }
    }

    /** RDMA Write / RDMA Write, footnote 1: once a later Read completed, both Writes are Placed. */
    @Test
    void appendixBWriteThenWriteArePlacedOnceAFencingReadCompleted() throws Exception {
        try (Loopback lb = new Loopback()) {
            Fence fence = new Fence(lb);
            MemoryRegion target = lb.server.allocate(400_000, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion first = filled(lb.client, 200_000, 160);
            MemoryRegion second = filled(lb.client, 200_000, 161);
            lb.client.qp.postSend(SendWorkRequest.write(10, target.advertise().slice(0, 200_000),
                    ScatterGatherEntry.of(first)));
            lb.client.qp.postSend(SendWorkRequest.write(11, target.advertise().slice(200_000, 200_000),
                    ScatterGatherEntry.of(second)));
            fence.readAndWait(12, 10, 11);

            assertSameBytes("both Writes", concat(pattern(200_000, 160), pattern(200_000, 161)),
                    contents(target, 0, 400_000));
        }
    }

    /**
     * RDMA Write / RDMA Read: the Read Response's payload is not Placed before the Write's payload is
     * Placed at the Remote Peer — a Read of what was just written returns the written data.
     */
    @Test
    void appendixBWriteThenReadReturnsTheWrittenData() throws Exception {
        try (Loopback lb = new Loopback()) {
            int size = 300_000;
            MemoryRegion remote = lb.server.pd.allocate(size, Access.all());
            fill(remote, pattern(size, 170));
            MemoryRegion written = filled(lb.client, size, 171);
            MemoryRegion sink = lb.client.allocate(size, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.write(1, remote.advertise(), ScatterGatherEntry.of(written)));
            lb.client.qp.postSend(SendWorkRequest.read(2, ScatterGatherEntry.of(sink), remote.advertise()));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(2);
            assertSameBytes("what the Read returned", pattern(size, 171), contents(sink, 0, size));
        }
    }

    /**
     * RDMA Read / Send, footnote 2: a Send posted after the Read completed cannot reach the Read's data —
     * the Read's sink holds the source as it was, while the Send overwrites the source afterwards.
     */
    @Test
    void appendixBReadThenSendPostedAfterTheReadCompletedDoesNotReachTheReadData() throws Exception {
        try (Loopback lb = new Loopback()) {
            int size = 300_000;
            MemoryRegion remote = lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_READ);
            fill(remote, pattern(size, 180));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(remote)));
            MemoryRegion sink = lb.client.allocate(size, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.read(2, ScatterGatherEntry.of(sink), remote.advertise()));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(2);
            assertSameBytes("the Read's sink when the Read completed", pattern(size, 180), contents(sink, 0, size));

            MemoryRegion sent = filled(lb.client, size, 181);
            lb.client.qp.postSend(SendWorkRequest.send(3, ScatterGatherEntry.of(sent)));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(3);
            assertThat(lb.server.nextSuccess().wrId()).isEqualTo(1);
            assertSameBytes("the Send at the remote peer", pattern(size, 181), contents(remote, 0, size));
            assertSameBytes("the Read's sink afterwards", pattern(size, 180), contents(sink, 0, size));
        }
    }

    /**
     * RDMA Read / RDMA Write, footnote 2: a Write posted after the Read completed cannot reach the Read's
     * data.
     */
    @Test
    void appendixBReadThenWritePostedAfterTheReadCompletedDoesNotReachTheReadData() throws Exception {
        try (Loopback lb = new Loopback()) {
            int size = 300_000;
            MemoryRegion remote = lb.server.pd.allocate(size, Access.all());
            fill(remote, pattern(size, 190));
            MemoryRegion sink = lb.client.allocate(size, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.read(1, ScatterGatherEntry.of(sink), remote.advertise()));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            assertSameBytes("the Read's sink when the Read completed", pattern(size, 190), contents(sink, 0, size));

            MemoryRegion written = filled(lb.client, size, 191);
            lb.client.qp.postSend(SendWorkRequest.write(2, remote.advertise(), ScatterGatherEntry.of(written)));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(2);
            new Fence(lb).readAndWait(3);
            assertSameBytes("the Write at the remote peer", pattern(size, 191), contents(remote, 0, size));
            assertSameBytes("the Read's sink afterwards", pattern(size, 190), contents(sink, 0, size));
        }
    }

    /**
     * RDMA Read / RDMA Read: the second Read Response is not generated until the first one is. The raw
     * peer asks for a large Read (several segments) and then a zero-length one, which could be answered
     * at once: its response must come after the first response's last segment.
     */
    @Test
    void appendixBReadThenReadSecondResponseIsNotGeneratedBeforeTheFirst() throws Exception {
        connectRaw(UnaryOperator.identity());
        byte[] data = pattern(250_000, 200);
        MemoryRegion source = filled(data, Access.REMOTE_READ);
        peer.sendAll(readRequest(peerReadMsn++, 0x0000e001, 0x100, data.length, source.stag(), 0),
                readRequest(peerReadMsn++, 0x0000e002, 0x200, 0, 0, 0));
        List<Seg> first = readResponse(0x0000e001, 0x100);
        assertThat(first.size()).as("segments of the first Read Response").isGreaterThan(1);
        assertSameBytes("the first Read Response", data, concat(first.stream().map(Seg::payload).toList()));
        List<Seg> second = readResponse(0x0000e002, 0x200);
        assertThat(second).hasSize(1);
        assertThat(second.get(0).payload()).isEmpty();
    }

    // =====================================================================================================
    // fixtures and helpers
    // =====================================================================================================

    /**
     * A Read from the server, issued after other operations and waited for: RFC 5040 Appendix B
     * footnote 1's Fence.
     */
    private static final class Fence {
        private final Loopback lb;
        private final MemoryRegion source;
        private final MemoryRegion sink;

        Fence(Loopback lb) {
            this.lb = lb;
            this.source = lb.server.allocate(16, Access.REMOTE_READ);
            this.sink = lb.client.allocate(16, Access.LOCAL_WRITE);
        }

        /** Posts the Read and waits for the completions of {@code before} (in order), then of the Read. */
        void readAndWait(long wrId, long... before) throws InterruptedException {
            lb.client.qp.postSend(SendWorkRequest.read(wrId, ScatterGatherEntry.of(sink), source.advertise()));
            for (long id : before) {
                assertThat(lb.client.nextSuccess().wrId()).isEqualTo(id);
            }
            WorkCompletion read = lb.client.nextSuccess();
            assertThat(read.wrId()).isEqualTo(wrId);
            assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
        }
    }

    /** Connects a raw MPA peer to a queue pair under test (the MPA responder) that accepts it. */
    private void connectRaw(UnaryOperator<QueuePairConfig> config) throws Exception {
        cm = ConnectionManager.create(2);
        device = RdmaDevice.create();
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(16384);
        qp = pd.createQueuePair(config.apply(QueuePairConfig.of(cq)));
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
                request -> request.accept(qp, new byte[0]).whenComplete((c, e) -> {
                    if (e != null) {
                        accepted.completeExceptionally(e);
                    } else {
                        accepted.complete(c);
                    }
                }));
        peer = RawPeer.connect(cm.eventLoopGroup(), listener.port(), MpaSettings.defaults());
        connection = accepted.get(5, TimeUnit.SECONDS);
    }

    /**
     * The queue pair under test, the MPA responder, sends nothing before it received a valid FPDU (RFC
     * 5044 §7.1.2 rule 4): a zero-length Read Request, answered, proves it may send.
     */
    private void openResponder() throws InterruptedException {
        peer.sendAll(readRequest(peerReadMsn++, 0x0000f00f, 0, 0, 0, 0));
        Seg response = Seg.of(peer.nextUlpdu(5));
        assertThat(response.opcode()).isEqualTo(READ_RESPONSE);
        assertThat(response.stag()).isEqualTo(0x0000f00f);
    }

    /** The segments of one whole Read Response to {@code sinkStag}, checked to be contiguous from {@code sinkTo}. */
    private List<Seg> readResponse(int sinkStag, long sinkTo) throws InterruptedException {
        List<Seg> segments = new ArrayList<>();
        long to = sinkTo;
        while (true) {
            Seg s = Seg.of(peer.nextUlpdu(5));
            assertThat(s.opcode()).as("opcode of %s", s).isEqualTo(READ_RESPONSE);
            assertThat(s.stag()).as("the Read Response to sink 0x%08x comes now, not %s", sinkStag, s)
                    .isEqualTo(sinkStag);
            assertThat(s.to()).as("TO of %s", s).isEqualTo(to);
            to += s.payload().length;
            segments.add(s);
            if (s.last()) {
                return segments;
            }
        }
    }

    /** A Send's segments on the wire: QN, MSN, contiguous MOs, L on the last only, and its payload. */
    private static void assertUntaggedMessage(List<Seg> message, int qn, int msn, byte[] payload) {
        long mo = 0;
        for (int i = 0; i < message.size(); i++) {
            Seg s = message.get(i);
            assertThat(s.tagged()).isFalse();
            assertThat(s.qn()).isEqualTo(qn);
            assertThat(s.msn()).isEqualTo(msn);
            assertThat(s.mo()).isEqualTo(mo);
            assertThat(s.last()).isEqualTo(i == message.size() - 1);
            mo += s.payload().length;
        }
        assertSameBytes("the message with MSN " + msn, payload, concat(message.stream().map(Seg::payload).toList()));
    }

    /**
     * Runs {@code query} on the event loop of the queue pair under test, after every task queued there
     * before it, and without the engine running meanwhile: it sees the engine's state between two events.
     */
    private <T> T onLoop(Callable<T> query) throws Exception {
        return connection.channel().eventLoop().submit(query).get(10, TimeUnit.SECONDS);
    }

    /**
     * Waits until the queue pair under test has taken in {@code octets} payload octets of {@code opcode}
     * (checked on its event loop, so the segments that make up that count are fully processed).
     */
    private void awaitInbound(RdmapOpcode opcode, long octets) {
        await(octets + " octets of " + opcode + " received").atMost(Duration.ofSeconds(5))
                .until(() -> onLoop(() -> qp.counters().octets(opcode, true)) >= octets);
    }

    /**
     * No completion yet, checked on the event loop, where completions are made: after an event that
     * would have made the completion in question, this is the proof it was not made.
     */
    private void assertNoCompletion(String what) throws Exception {
        assertThat(onLoop(cq::size)).as(what).isZero();
    }

    /** One DDP segment received by the raw peer (RFC 5041 §4.3, §4.4; RFC 5040 §4.4 for Read Requests). */
    private record Seg(byte[] raw) {
        static Seg of(byte[] raw) {
            return new Seg(raw);
        }

        private ByteBuffer b() {
            return ByteBuffer.wrap(raw);
        }

        boolean tagged() {
            return (raw[0] & 0x80) != 0;
        }

        boolean last() {
            return (raw[0] & 0x40) != 0;
        }

        int opcode() {
            return raw[1] & 0x0F;
        }

        int stag() {
            return b().getInt(2);
        }

        long to() {
            return b().getLong(6);
        }

        long qn() {
            return Integer.toUnsignedLong(b().getInt(6));
        }

        long msn() {
            return Integer.toUnsignedLong(b().getInt(10));
        }

        long mo() {
            return Integer.toUnsignedLong(b().getInt(14));
        }

        int sinkStag() {
            return b().getInt(18);
        }

        long sinkTo() {
            return b().getLong(22);
        }

        long readSize() {
            return Integer.toUnsignedLong(b().getInt(30));
        }

        int sourceStag() {
            return b().getInt(34);
        }

        long sourceTo() {
            return b().getLong(38);
        }

        byte[] payload() {
            return Arrays.copyOfRange(raw, tagged() ? TaggedHeaderCodec.LENGTH : UntaggedHeaderCodec.LENGTH,
                    raw.length);
        }

        @Override
        public String toString() {
            return tagged()
                    ? String.format("tagged{opcode=%d L=%b STag=0x%08x TO=0x%x %d octets}", opcode(), last(), stag(),
                            to(), payload().length)
                    : String.format("untagged{opcode=%d L=%b QN=%d MSN=%d MO=%d %d octets}", opcode(), last(), qn(),
                            msn(), mo(), payload().length);
        }
    }

    // ---- ULPDU builders ----

    private static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(TaggedHeaderCodec.LENGTH + payload.length)
                .put((byte) (0x80 | (last ? 0x40 : 0) | 1)).put((byte) (0x40 | opcode)).putInt(stag).putLong(to)
                .put(payload).array();
    }

    private static byte[] untagged(int opcode, boolean last, int invalidateStag, int qn, int msn, int mo,
            byte[] payload) {
        return ByteBuffer.allocate(UntaggedHeaderCodec.LENGTH + payload.length)
                .put((byte) ((last ? 0x40 : 0) | 1)).put((byte) (0x40 | opcode)).putInt(invalidateStag).putInt(qn)
                .putInt(msn).putInt(mo).put(payload).array();
    }

    private static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        byte[] header = ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag)
                .putLong(sourceTo).array();
        return untagged(READ_REQUEST, true, 0, 1, msn, 0, header);
    }

    /** A Send of {@code data} cut into segments of {@code segment} octets. */
    private static List<byte[]> sendSegments(int opcode, int msn, byte[] data, int segment) {
        List<byte[]> out = new ArrayList<>();
        int off = 0;
        do {
            int end = Math.min(data.length, off + segment);
            out.add(untagged(opcode, end == data.length, 0, 0, msn, off, Arrays.copyOfRange(data, off, end)));
            off = end;
        } while (off < data.length);
        return out;
    }

    // ---- memory ----

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        for (int i = 0; i < length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    private static void fill(MemoryRegion region, byte[] data) {
        region.buffer().setBytes(0, data);
    }

    private static MemoryRegion filled(Loopback.Side side, int length, int seed) {
        MemoryRegion r = side.allocate(length, Access.LOCAL_WRITE);
        fill(r, pattern(length, seed));
        return r;
    }

    private MemoryRegion filled(byte[] data) {
        return filled(data, Access.LOCAL_WRITE);
    }

    private MemoryRegion filled(byte[] data, Access access) {
        MemoryRegion r = pd.allocate(data.length, Access.of(access));
        fill(r, data);
        return r;
    }

    static byte[] contents(MemoryRegion region, int offset, int length) {
        return ByteBufUtil.getBytes(region.buffer(), offset, length);
    }

    private static byte[] concat(byte[]... parts) {
        return concat(Arrays.asList(parts));
    }

    private static byte[] concat(List<byte[]> parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    /** Compares large arrays and reports the first difference rather than both arrays. */
    static void assertSameBytes(String what, byte[] expected, byte[] actual) {
        assertThat(actual.length).as("%s: length", what).isEqualTo(expected.length);
        int mismatch = Arrays.mismatch(expected, actual);
        if (mismatch >= 0) {
            int differing = 0;
            for (int i = mismatch; i < expected.length; i++) {
                if (expected[i] != actual[i]) {
                    differing++;
                }
            }
            throw new AssertionError(String.format("%s: %d of %d octets differ, the first at %d (expected 0x%02x,"
                    + " found 0x%02x)", what, differing, expected.length, mismatch, expected[mismatch] & 0xFF,
                    actual[mismatch] & 0xFF));
        }
    }
}
