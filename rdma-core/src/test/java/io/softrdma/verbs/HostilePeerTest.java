package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile peers (RFC 5040 §8, RFC 5041 §8): a peer guessing STags, and a peer that stops reading. Each attack gets
 * its Terminate (or its back-pressure) and a clean end, and a healthy connection on the same listener and in the
 * same protection domain keeps working throughout. TerminateTest has one test per error of RFC 5040 §7 and RFC 5041
 * §7.2; this class adds the attacks that need many tries or a long stall.
 */
class HostilePeerTest {
    private static final String PAYLOAD16 = "00112233445566778899aabbccddeeff";

    private final ConnectionManager cm = ConnectionManager.create(2);
    private final RdmaDevice device = RdmaDevice.create();
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(4096);
    /** The queue pairs the listener gives to the next connections, in order. */
    private final BlockingQueue<QueuePair> next = new LinkedBlockingQueue<>();
    private final BlockingQueue<RdmaConnection> accepted = new LinkedBlockingQueue<>();
    private final RdmaListener listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
            request -> request.accept(next.poll(), new byte[0]).whenComplete((c, e) -> {
                if (c != null) {
                    accepted.add(c);
                }
            }));

    @AfterEach
    void tearDown() {
        listener.close();
        cm.close();
        pd.close();
    }

    /** A raw peer connected to a fresh queue pair of {@link #pd}; returns the pair's queue pair. */
    private QueuePair accept(java.util.function.UnaryOperator<QueuePairConfig> config, RawPeer[] peer)
            throws Exception {
        QueuePair qp = pd.createQueuePair(config.apply(QueuePairConfig.of(cq)));
        next.add(qp);
        peer[0] = RawPeer.connect(cm.eventLoopGroup(), listener.port(), MpaSettings.defaults());
        assertThat(accepted.poll(5, TimeUnit.SECONDS)).isNotNull();
        return qp;
    }

    /** Runs {@code query} on {@code qp}'s event loop, after every task queued there before it. */
    private static <T> T onLoop(QueuePair qp, Callable<T> query) throws Exception {
        return ((DefaultQueuePair) qp).ctx.executor().submit(query).get(10, TimeUnit.SECONDS);
    }

    private static TerminateException terminateOf(QueuePair qp) throws Exception {
        try {
            qp.closeFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError("the queue pair closed without a Terminate");
        } catch (ExecutionException e) {
            return (TerminateException) e.getCause();
        }
    }

    /**
     * A peer that sends each FPDU an octet per TCP segment (a slow or hostile one, or a path that fragments): the
     * queue pair answers a Read Request so received as it answers one received whole, and the Terminate for a
     * Write so received quotes its header as it would (RFC 5040 §7.1), while a healthy connection keeps working.
     */
    @Test
    void aPeerThatSendsItsFpdusAnOctetAtATimeIsAnsweredAsIfItSentThemWhole() throws Exception {
        RawPeer[] dribbler = new RawPeer[1];
        QueuePair qp = accept(c -> c, dribbler);
        RawPeer[] healthy = new RawPeer[1];
        accept(c -> c, healthy);
        MemoryRegion source = pd.allocate(16, Access.of(Access.LOCAL_WRITE,
                Access.REMOTE_READ));
        source.buffer().setBytes(0, io.softrdma.testing.Hex.bytes(PAYLOAD16));
        try {
            dribbler[0].sendAnOctetAtATime(RawPeer.readRequest(1, 0x1234, 0, 16, source.stag(), 0));
            assertThat(dribbler[0].next()).as("the Read Response, with the source's 16 octets")
                    .isEqualTo(RawPeer.tagged(2, true, 0x1234, 0) + PAYLOAD16);
            String write = RawPeer.tagged(0, true, 0x00abcd01, 0) + PAYLOAD16;
            dribbler[0].sendAnOctetAtATime(write);
            dribbler[0].expectTerminate(qp, RawPeer.terminate(1, 1, 0x00, write.substring(0, 28), 30, ""),
                    "TAGGED_INVALID_STAG");
            healthy[0].send(RawPeer.readRequest(1, 0x5678, 0, 16, source.stag(), 0));
            assertThat(healthy[0].next()).as("the other connection").isEqualTo(RawPeer.tagged(2, true, 0x5678, 0)
                    + PAYLOAD16);
        } finally {
            dribbler[0].close();
            healthy[0].close();
            source.close();
        }
    }

    @Test
    void rfc5040Section8_2GuessedStagsAreAllRejectedAndEachGuessEndsItsStream() throws Exception {
        MemoryRegion target = pd.allocate(64, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        target.buffer().setZero(0, 64); // allocated memory is not cleared: zero it to see any placement
        int stag = target.stag();
        // A healthy connection in the same protection domain, on the same listener, used between the attacks.
        RawPeer[] healthy = new RawPeer[1];
        QueuePair healthyQp = accept(c -> c, healthy);
        int guesses = 0;
        for (int i = 1; i < 256; i += 4) {
            int wrongKey = (stag & 0xFFFFFF00) | ((stag + i) & 0xFF);   // the right region, a wrong key
            int wrongIndex = stag ^ (i << 8);                           // a key on another (unused) index
            for (int guess : new int[] {wrongKey, wrongIndex}) {
                RawPeer[] attacker = new RawPeer[1];
                QueuePair qp = accept(c -> c, attacker);
                String write = RawPeer.tagged(0, true, guess, 0) + PAYLOAD16;
                attacker[0].send(write);
                // RFC 5041 §7.2: invalid STag, Layer 1 (DDP), EType 1 (tagged buffer), Code 0; then the stream closes.
                TerminateException t = terminateOf(qp);
                assertThat(t.code().name()).as("guess %08x", guess).isEqualTo("TAGGED_INVALID_STAG");
                assertThat(attacker[0].awaitClose()).isTrue();
                attacker[0].close();
                guesses++;
            }
            assertThat(ByteBufUtil.getBytes(target.buffer(), 0, 16)).as("nothing placed by a wrong STag")
                    .containsOnly((byte) 0);
        }
        assertThat(guesses).isEqualTo(128);
        // The right STag still works on the healthy connection: the region and the listener were never harmed.
        healthy[0].send(RawPeer.tagged(0, true, stag, 0) + PAYLOAD16);
        await("the Write on the healthy connection").atMost(Duration.ofSeconds(5))
                .until(() -> onLoop(healthyQp, () -> healthyQp.counters().messages(RdmapOpcode.RDMA_WRITE, true)) == 1);
        assertThat(ByteBufUtil.hexDump(target.buffer(), 0, 16)).isEqualTo(PAYLOAD16);
        assertThat(healthyQp.state()).isEqualTo(QueuePairState.RTS);
        healthy[0].close();
        healthyQp.close();
        target.close();
    }

    @Test
    void aPeerThatStopsReadingStallsTheSenderWithoutBufferingWithoutBound() throws Exception {
        RawPeer[] peer = new RawPeer[1];
        int depth = 64;
        QueuePair qp = accept(c -> c.withSendQueueDepth(depth), peer);
        // RFC 5044 §7.1.2: the responder sends nothing before the initiator's first FPDU; a zero-length Write
        // (RFC 6581's ready-to-receive) opens it. Then the peer stops reading.
        peer[0].send(RawPeer.tagged(0, true, 1, 0));
        await("the zero-length Write that opens the responder").atMost(Duration.ofSeconds(5))
                .until(() -> onLoop(qp, () -> qp.counters().messages(RdmapOpcode.RDMA_WRITE, true)) == 1);
        peer[0].pauseReading();
        MemoryRegion source = pd.allocate(1 << 20, Access.of(Access.LOCAL_WRITE));
        // 64 Writes of 1 MiB to the peer (its STag does not matter: it never reads them), posted by one task on
        // the queue pair's event loop, which carries them out only after it: none can complete (and free its
        // slot) before the 65th post, which must find the send queue full.
        Throwable refused = onLoop(qp, () -> {
            for (int i = 0; i < depth; i++) {
                qp.postSend(SendWorkRequest.write(i, new RemoteMemory(0x1234_5678, 0, 1 << 20),
                        ScatterGatherEntry.of(source)));
            }
            return catchThrowable(() -> qp.postSend(SendWorkRequest.write(99, new RemoteMemory(0x1234_5678, 0, 1 << 20),
                    ScatterGatherEntry.of(source))));
        });
        assertThat(refused).as("the send queue is the bound on posted work").hasMessageContaining("send queue full");
        // The sender has written until the channel took no more: the stall this test is about.
        Channel ch = ((DefaultQueuePair) qp).ctx.channel();
        await("the sender stalls: the channel no longer takes writes").atMost(Duration.ofSeconds(10))
                .until(() -> onLoop(qp, () -> !ch.isWritable()));
        ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        long pendingBytes = onLoop(qp, () -> out == null ? 0 : out.totalPendingWriteBytes());
        // The Writes reference the application's memory (no copies); what the channel holds is bounded by the
        // high-water mark (2 MiB) plus the FPDUs of one flush.
        assertThat(pendingBytes).as("octets queued in the channel").isLessThan(4L * 1024 * 1024);
        int completed = 0;
        WorkCompletion c;
        while ((c = cq.poll()) != null) {
            assertThat(c.isSuccess()).isTrue();
            completed++;
        }
        assertThat(completed).as("Writes complete only as TCP takes them").isLessThan(depth);
        // The peer reads again: everything drains, every Write completes once.
        peer[0].resumeReading();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (completed < depth && System.nanoTime() < deadline) {
            WorkCompletion w = cq.take(Duration.ofMillis(500));
            if (w != null) {
                assertThat(w.isSuccess()).isTrue();
                completed++;
            }
        }
        assertThat(completed).isEqualTo(depth);
        peer[0].close();
        qp.close();
        source.close();
    }

    @Test
    void anInitiatorThatNeverSendsItsFirstFpduGetsNothingAndItsHeldWorkIsFlushedOnClose() throws Exception {
        RawPeer[] peer = new RawPeer[1];
        QueuePair qp = accept(c -> c.withSendQueueDepth(16), peer);
        MemoryRegion source = pd.allocate(1 << 16, Access.of(Access.LOCAL_WRITE));
        // RFC 5044 §7.1.2: the responder holds its FPDUs until the initiator's first one, which never comes.
        for (int i = 0; i < 16; i++) {
            qp.postSend(SendWorkRequest.write(i, new RemoteMemory(0x1234_5678, 0, 1 << 16), ScatterGatherEntry.of(source)));
        }
        // On the event loop, after the task that carried the posts out: the FPDU encoder holds the Writes,
        // none reached the channel's outbound buffer, none completed.
        Channel ch = ((DefaultQueuePair) qp).ctx.channel();
        FpduEncoder encoder = (FpduEncoder) ch.pipeline().get(PipelineNames.FPDU_ENCODER);
        assertThat(onLoop(qp, encoder::isHolding)).as("the encoder holds the responder's FPDUs").isTrue();
        long[] sent = onLoop(qp, () -> new long[] {ch.unsafe().outboundBuffer().totalPendingWriteBytes(), cq.size()});
        assertThat(sent).as("octets in the channel, completions").containsOnly(0L);
        assertThat(cq.poll()).as("nothing completes: nothing was sent").isNull();
        assertThatThrownBy(() -> peer[0].nextUlpdu(0)).as("the peer received nothing");
        // The connection goes: every held Write completes once, flushed, and its buffers are released (the leak
        // detector at PARANOID checks after the test).
        peer[0].close();
        int flushed = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (flushed < 16 && System.nanoTime() < deadline) {
            WorkCompletion c = cq.take(Duration.ofMillis(500));
            if (c != null) {
                assertThat(c.isSuccess()).as("%s", c).isFalse();
                flushed++;
            }
        }
        assertThat(flushed).isEqualTo(16);
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
        source.close();
    }
}
