package io.softrdma.verbs;

import static io.softrdma.verbs.RawPeer.tagged;
import static io.softrdma.verbs.RawPeer.untagged;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufUtil;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.testing.Hex;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * RFC 7306 §7, the Ordering and Completions Table, row by row (First Operation → Second Operation, as the Local
 * Peer posts them). Each test names its row. The rows whose every column is "No Placement Guarantee", "MAY" or
 * "Not Applicable" (Immediate Data → RDMA Write; RDMA Read → Immediate Data; Atomic → Immediate Data, Send or
 * RDMA Write) promise nothing a test could see fail, and have none; where such a row permits what an ordering
 * the implementation does not keep would show, the test of the neighbouring row says so.
 *
 * <p>"Completed at the Remote Peer" is observed as the Remote Peer's completion queue holding the completion at the
 * moment the Local Peer's later completion is taken: the Remote Peer queues it before it sends what the Local
 * Peer's completion waits for.
 */
class Rfc7306OrderingTest {

    /** The Remote Peer's next completion, which must already be queued. */
    private static WorkCompletion alreadyQueued(Loopback.Side side) {
        WorkCompletion c = side.cq.poll();
        assertThat(c).as("a completion already queued at the Remote Peer").isNotNull();
        assertThat(c.isSuccess()).as("%s", c).isTrue();
        return c;
    }

    // ---- Immediate Data first ----

    @Test
    void rfc7306Section7ImmediateDataThenSendAreCompletedInOrderAtTheRemotePeer() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(receive)));
            MemoryRegion payload = lb.client.allocate(8, Access.LOCAL_WRITE);
            payload.buffer().setLong(0, 0x5E4D);
            lb.client.qp.postSend(SendWorkRequest.immediateData(1, 0x1111));
            lb.client.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(payload)));

            WorkCompletion first = lb.server.nextSuccess();
            WorkCompletion second = lb.server.nextSuccess();
            assertThat(first.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
            assertThat(first.immediateData()).isEqualTo(0x1111);
            assertThat(second.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(second.wrId()).isEqualTo(2);
            lb.assertNoTerminate();
            receive.close();
            payload.close();
        }
    }

    @Test
    void rfc7306Section7ImmediateDataThenReadTheReadResponseIsNotGeneratedUntilTheImmediateDataIsCompleted()
            throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            MemoryRegion source = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_READ));
            MemoryRegion sink = lb.client.allocate(64, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.immediateData(1, 0x2222));
            lb.client.qp.postSend(SendWorkRequest.read(2, ScatterGatherEntry.of(sink), source.advertise()));

            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(alreadyQueued(lb.server).immediateData()).isEqualTo(0x2222);
            lb.assertNoTerminate();
            receive.close();
            source.close();
            sink.close();
        }
    }

    @Test
    void rfc7306Section7ImmediateDataThenAtomicTheAtomicResponseIsNotGeneratedUntilTheImmediateDataIsCompleted()
            throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            MemoryRegion word = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            lb.client.qp.postSend(SendWorkRequest.immediateData(1, 0x3333));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(2, word.stag(), word.baseTaggedOffset(), 1));

            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_FETCH_ADD);
            assertThat(alreadyQueued(lb.server).immediateData()).isEqualTo(0x3333);
            lb.assertNoTerminate();
            receive.close();
            word.close();
        }
    }

    @Test
    void rfc7306Section7ImmediateDataOrSendThenImmediateDataAreCompletedInOrder() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            for (int i = 1; i <= 4; i++) {
                lb.server.qp.postReceive(ReceiveWorkRequest.of(i, ScatterGatherEntry.of(receive)));
            }
            MemoryRegion payload = lb.client.allocate(8, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(payload)));
            lb.client.qp.postSend(SendWorkRequest.immediateData(2, 2));
            lb.client.qp.postSend(SendWorkRequest.immediateData(3, 3));
            lb.client.qp.postSend(SendWorkRequest.immediateData(4, 4).withSolicitedEvent());

            assertThat(lb.server.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            for (long data = 2; data <= 4; data++) {
                WorkCompletion c = lb.server.nextSuccess();
                assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
                assertThat(c.wrId()).as("the receives consumed in order").isEqualTo(data);
                assertThat(c.immediateData()).isEqualTo(data);
            }
            lb.assertNoTerminate();
            receive.close();
            payload.close();
        }
    }

    // ---- RDMA Write first ----

    @Test
    void rfc7306Section7RdmaWriteThenImmediateDataTheImmediateDataIsCompletedAfterTheWriteIsPlaced()
            throws Exception {
        // A Write and Immediate Data posted apart (not as one Write with Immediate Data).
        try (Loopback lb = Loopback.withExtensions()) {
            int size = 100_000;
            MemoryRegion target = Loopback.zeroed(lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            MemoryRegion source = lb.client.allocate(size, Access.LOCAL_WRITE);
            byte[] data = VerbsLoopbackTest.pattern(size, 7);
            source.buffer().setBytes(0, data);
            lb.client.qp.postSend(SendWorkRequest.write(1, target.advertise(), ScatterGatherEntry.of(source)));
            lb.client.qp.postSend(SendWorkRequest.immediateData(2, 0x4444));

            WorkCompletion c = lb.server.nextSuccess();
            byte[] placed = ByteBufUtil.getBytes(target.buffer(), 0, size);
            assertThat(c.immediateData()).isEqualTo(0x4444);
            assertThat(placed).isEqualTo(data);
            lb.assertNoTerminate();
            target.close();
            receive.close();
            source.close();
        }
    }

    @Test
    void rfc7306Section7RdmaWriteThenAtomicTheAtomicSeesTheWriteAndCompletesAfterItIsPlaced() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            int size = 100_000;
            MemoryRegion target = Loopback.zeroed(lb.server.allocate(size,
                    Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC));
            MemoryRegion source = lb.client.allocate(size, Access.LOCAL_WRITE);
            byte[] data = VerbsLoopbackTest.pattern(size, 8);
            source.buffer().setBytes(0, data);
            source.buffer().setLong(size - 8, 41);
            RemoteMemory remote = target.advertise();
            lb.client.qp.postSend(SendWorkRequest.write(1, remote, ScatterGatherEntry.of(source)));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(2, remote.stag(), remote.taggedOffset() + size - 8, 1));

            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            WorkCompletion atomic = lb.client.nextSuccess();
            byte[] placed = ByteBufUtil.getBytes(target.buffer(), 0, size - 8);
            assertThat(atomic.atomicOriginalValue()).as("the word the Write left").isEqualTo(41);
            assertThat(placed).isEqualTo(java.util.Arrays.copyOf(data, size - 8));
            assertThat(target.buffer().getLong(size - 8)).isEqualTo(42);
            lb.assertNoTerminate();
            target.close();
            source.close();
        }
    }

    // ---- Send first ----

    @Test
    void rfc7306Section7SendThenAtomicTheAtomicResponseIsNotGeneratedUntilTheSendIsCompleted() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            MemoryRegion word = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            MemoryRegion payload = lb.client.allocate(16, Access.LOCAL_WRITE);
            payload.buffer().setLong(0, 0x5E4D_5E4DL);
            lb.client.qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(payload)));
            lb.client.qp.postSend(SendWorkRequest.compareAndSwap(2, word.stag(), word.baseTaggedOffset() + 8, 0, 1));

            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP);
            WorkCompletion send = alreadyQueued(lb.server);
            assertThat(send.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(receive.buffer().getLong(0)).isEqualTo(0x5E4D_5E4DL);
            lb.assertNoTerminate();
            receive.close();
            word.close();
            payload.close();
        }
    }

    // ---- RDMA Read and Atomic, both ways ----

    @Test
    void rfc7306Section7RdmaReadThenAtomicTheReadReturnsTheWordBeforeTheAtomic() throws Exception {
        // "Atomic Response Message will not be generated until RDMA Read Response has been generated": the atomic
        // waits for the Read Response, so the Read, posted first, returns the word as it was. A Read of 1 MiB takes
        // many segments, long enough for an atomic carried out on arrival (as this stack once did) to overtake it.
        try (Loopback lb = Loopback.withExtensions()) {
            int size = 1 << 20;
            MemoryRegion remote = Loopback.zeroed(lb.server.allocate(size,
                    Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));
            for (int at = 0; at < size; at += 4096) {
                remote.buffer().setLong(at, at);
            }
            MemoryRegion sink = lb.client.allocate(size, Access.LOCAL_WRITE);
            RemoteMemory r = remote.advertise();
            lb.client.qp.postSend(SendWorkRequest.read(1, ScatterGatherEntry.of(sink), r));
            for (int i = 0; i < 64; i++) {
                lb.client.qp.postSend(SendWorkRequest.fetchAdd(2 + i, r.stag(), r.taggedOffset() + size - 4096, 1));
            }
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(100, r.stag(), r.taggedOffset() + 8 * 4096, 1_000_000));

            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(1);
            for (int i = 0; i < 64; i++) {
                assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(size - 4096 + i);
            }
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(8 * 4096);
            for (int at = 0; at < size; at += 4096) {
                assertThat(sink.buffer().getLong(at)).as("the word at %d as the Read found it", at).isEqualTo(at);
            }
            assertThat(remote.buffer().getLong(size - 4096)).isEqualTo(size - 4096 + 64);
            assertThat(remote.buffer().getLong(8 * 4096)).isEqualTo(8 * 4096 + 1_000_000);
            lb.assertNoTerminate();
            remote.close();
            sink.close();
        }
    }

    @Test
    void rfc7306Section7AtomicThenRdmaReadTheReadReturnsTheWordAfterTheAtomic() throws Exception {
        // "RDMA Read Response Message will not be generated until Atomic Response Message has been generated".
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion remote = Loopback.zeroed(lb.server.allocate(64,
                    Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));
            remote.buffer().setLong(16, 5);
            MemoryRegion sink = lb.client.allocate(64, Access.LOCAL_WRITE);
            RemoteMemory r = remote.advertise();
            lb.client.qp.postSend(SendWorkRequest.compareAndSwap(1, r.stag(), r.taggedOffset() + 16, 5, 6));
            lb.client.qp.postSend(SendWorkRequest.read(2, ScatterGatherEntry.of(sink), r));

            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(5);
            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(sink.buffer().getLong(16)).isEqualTo(6);
            lb.assertNoTerminate();
            remote.close();
            sink.close();
        }
    }

    @Test
    void rfc7306Section7AtomicThenAtomicTheSecondIsProcessedAfterTheFirstsResponseIsGenerated() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion word = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            RemoteMemory r = word.advertise();
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(1, r.stag(), r.taggedOffset(), 3));
            lb.client.qp.postSend(SendWorkRequest.compareAndSwap(2, r.stag(), r.taggedOffset(), 3, 10));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(3, r.stag(), r.taggedOffset(), 1));

            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isZero();
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).as("saw the first's result").isEqualTo(3);
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).as("saw the second's").isEqualTo(10);
            assertThat(word.buffer().getLong(0)).isEqualTo(11);
            lb.assertNoTerminate();
            word.close();
        }
    }

    // ---- the same rows on the wire: what the responder generates, in which order ----

    @Test
    void rfc7306Section7OnTheWireReadResponsesAndAtomicResponsesLeaveInRequestOrderEachWithTheWordOfItsTurn()
            throws Exception {
        // A raw requester sends Read, Atomic, Read, Atomic on one word in one flush, so the responder has them all
        // before it generates anything: the Read Responses and Atomic Responses must alternate, and each Read must
        // show the word after exactly the atomics before it.
        ConnectionManager cm = ConnectionManager.create(1);
        RdmaDevice device = RdmaDevice.create();
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(1024);
        QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withReadDepths(8, 8)
                .withExtensions(RdmapExtensions.ALL));
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        RdmaListener listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
                request -> request.accept(qp, new byte[0]).whenComplete((c, e) -> accepted.complete(c)));
        RawPeer peer = RawPeer.connect(cm.eventLoopGroup(), listener.port(), MpaSettings.defaults(),
                RdmapExtensions.ALL.appendTo(new byte[0]));
        try {
            accepted.get(5, TimeUnit.SECONDS);
            MemoryRegion word = Loopback.zeroed(pd.allocate(64,
                    Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC)));
            word.buffer().setLong(8, 100);
            int stag = word.stag();
            String add = "%08x%08x%08x%016x%016x%016x%016x%016x";
            peer.sendAll(Hex.bytes(RawPeer.readRequest(1, 0x77, 0, 8, stag, 8)),
                    Hex.bytes(untagged(0xA, true, 0, 1, 2, 0) + String.format(add, 0, 1, stag, 8L, 1L, 0L, 0L, -1L)),
                    Hex.bytes(RawPeer.readRequest(3, 0x77, 8, 8, stag, 8)),
                    Hex.bytes(untagged(0xA, true, 0, 1, 4, 0) + String.format(add, 0, 2, stag, 8L, 1L, 0L, 0L, -1L)));
            assertThat(peer.next()).isEqualTo(tagged(2, true, 0x77, 0) + "0000000000000064");
            assertThat(peer.next()).isEqualTo(untagged(0xB, true, 0, 3, 1, 0) + "00000001" + "0000000000000064");
            assertThat(peer.next()).isEqualTo(tagged(2, true, 0x77, 8) + "0000000000000065");
            assertThat(peer.next()).isEqualTo(untagged(0xB, true, 0, 3, 2, 0) + "00000002" + "0000000000000065");
            assertThat(word.buffer().getLong(8)).isEqualTo(102);
            word.close();
        } finally {
            peer.close();
            qp.close();
            qp.closeFuture().handle((v, e) -> null).join();
            listener.close();
            cm.close();
            pd.close();
        }
    }
}
