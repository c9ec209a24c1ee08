package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 7306 end to end over loopback TCP: atomics and Immediate Data between two SoftRDMA queue pairs that both
 * offered the extensions, what happens when only one did, and a word shared by several connections.
 */
class AtomicsLoopbackTest {

    // ---- (a) each atomic operation ----

    @Test
    void rfc7306Section5_1_1FetchAddReturnsTheOriginalAndUpdatesTheRemoteWord() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion region = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            region.buffer().setLong(8, 40);
            RemoteMemory remote = region.advertise();
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(1, remote.stag(), remote.taggedOffset() + 8, 2));

            WorkCompletion c = lb.client.nextSuccess();
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_FETCH_ADD);
            assertThat(c.wrId()).isEqualTo(1);
            assertThat(c.atomicOriginalValue()).isEqualTo(40);
            assertThat(region.buffer().getLong(8)).isEqualTo(42);
            assertThat(region.buffer().getLong(0)).as("the word before").isZero();
            assertThat(region.buffer().getLong(16)).as("the word after").isZero();

            lb.client.qp.postSend(SendWorkRequest.fetchAdd(2, remote.stag(), remote.taggedOffset() + 8, -43));
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(42);
            assertThat(region.buffer().getLong(8)).as("wraps modulo 2^64").isEqualTo(-1L);
            lb.assertNoTerminate();
            region.close();
        }
    }

    @Test
    void rfc7306Section5_1_2CompareAndSwapSwapsOnlyWhenTheWordMatches() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion region = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            region.buffer().setLong(56, 42);
            RemoteMemory remote = region.advertise();
            long to = remote.taggedOffset() + 56;

            lb.client.qp.postSend(SendWorkRequest.compareAndSwap(1, remote.stag(), to, 42, 100));
            WorkCompletion swapped = lb.client.nextSuccess();
            assertThat(swapped.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP);
            assertThat(swapped.atomicOriginalValue()).isEqualTo(42);
            assertThat(region.buffer().getLong(56)).isEqualTo(100);

            lb.client.qp.postSend(SendWorkRequest.compareAndSwap(2, remote.stag(), to, 42, 7));
            WorkCompletion failed = lb.client.nextSuccess();
            // A failed compare is still a successful operation: the original value is how the requester knows.
            assertThat(failed.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP);
            assertThat(failed.atomicOriginalValue()).isEqualTo(100);
            assertThat(region.buffer().getLong(56)).isEqualTo(100);
            lb.assertNoTerminate();
            region.close();
        }
    }

    @Test
    void rfc7306Section5_1_1MaskedFetchAddKeepsIndependentCountersInOneWord() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion region = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            region.buffer().setLong(16, 0x0000_0001_FFFF_FFFFL);
            RemoteMemory remote = region.advertise();
            long to = remote.taggedOffset() + 16;

            lb.client.qp.postSend(SendWorkRequest.maskedFetchAdd(1, remote.stag(), to, 1, 0x8000_0000_8000_0000L));
            WorkCompletion c = lb.client.nextSuccess();
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_FETCH_ADD);
            assertThat(c.atomicOriginalValue()).isEqualTo(0x0000_0001_FFFF_FFFFL);
            assertThat(region.buffer().getLong(16)).as("the low counter wrapped alone").isEqualTo(0x0000_0001_0000_0000L);

            lb.client.qp.postSend(SendWorkRequest.maskedFetchAdd(2, remote.stag(), to, 0x0101_0101_0101_0101L,
                    0x8080_8080_8080_8080L));
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(0x0000_0001_0000_0000L);
            assertThat(region.buffer().getLong(16)).isEqualTo(0x0101_0102_0101_0101L);
            lb.assertNoTerminate();
            region.close();
        }
    }

    @Test
    void rfc7306Section5_1_2MaskedCompareAndSwapComparesAndSwapsOnlyTheMaskedBits() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion region = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            region.buffer().setLong(24, 0x1122_3344_5566_7788L);
            RemoteMemory remote = region.advertise();
            long to = remote.taggedOffset() + 24;

            lb.client.qp.postSend(SendWorkRequest.maskedCompareAndSwap(1, remote.stag(), to, 0x1122_0000_0000_0000L,
                    0xFFFF_0000_0000_0000L, 0xAAAA_AAAA_AAAA_AAAAL, 0x0000_0000_0000_FFFFL));
            WorkCompletion c = lb.client.nextSuccess();
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP);
            assertThat(c.atomicOriginalValue()).isEqualTo(0x1122_3344_5566_7788L);
            assertThat(region.buffer().getLong(24)).isEqualTo(0x1122_3344_5566_AAAAL);

            lb.client.qp.postSend(SendWorkRequest.maskedCompareAndSwap(2, remote.stag(), to, 0x9922_0000_0000_0000L,
                    0xFFFF_0000_0000_0000L, 0, -1L));
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(0x1122_3344_5566_AAAAL);
            assertThat(region.buffer().getLong(24)).as("a compared bit differed").isEqualTo(0x1122_3344_5566_AAAAL);
            lb.assertNoTerminate();
            region.close();
        }
    }

    @Test
    void rfc7306Section8_2AWordAtAnUnalignedAddressIsNotUpdatedThoughItsTaggedOffsetIsAligned() throws Exception {
        // A base TO of 3 puts the aligned TO 8 at octet 5 of aligned memory: §5.1.1 and §8.2 forbid the operation
        // (no lock-emulated update): the responder Terminates with 0/2/0x07 and the atomic fails at the requester.
        try (Loopback lb = Loopback.withExtensions()) {
            ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
            memory.setZero(0, 64).writerIndex(64);
            assertThat(memory.nioBuffer(0, 64).alignmentOffset(0, Long.BYTES)).isZero();
            MemoryRegion region = lb.server.pd.register(memory, Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC), 3);
            memory.release();
            region.buffer().setLong(5, 0x00FF_FFFF_FFFF_FFFFL);
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(1, region.stag(), 8, 1));
            WorkCompletion c = lb.client.next();
            assertThat(c.wrId()).isEqualTo(1);
            assertThat(c.status()).isEqualTo(WorkCompletionStatus.REMOTE_OPERATION_ERROR);
            assertThat(region.buffer().getLong(5)).as("memory not modified").isEqualTo(0x00FF_FFFF_FFFF_FFFFL);
            assertThat(ByteBufUtil.getBytes(region.buffer(), 0, 5)).as("octets before the word").containsOnly(0);
            org.awaitility.Awaitility.await().until(() -> !lb.client.events.isEmpty());
            assertThat(lb.client.events.get(0)).contains("OPERATION_CATASTROPHIC_STREAM");
            region.close();
        }
    }

    @Test
    void rfc7306Section5_2_1ARemoteTaggedOffsetMayStartAtAnArbitraryOffsetIfItsWordIsAligned() throws Exception {
        // The same region: TO 3 and TO 11 are octets 0 and 8, aligned words, so the odd TOs are valid.
        try (Loopback lb = Loopback.withExtensions()) {
            ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
            memory.setZero(0, 64).writerIndex(64);
            assertThat(memory.nioBuffer(0, 64).alignmentOffset(0, Long.BYTES)).isZero();
            MemoryRegion region = lb.server.pd.register(memory, Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC), 3);
            memory.release();
            region.buffer().setLong(8, 0x00FF_FFFF_FFFF_FFFFL);
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(1, region.stag(), 11, 1));
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isEqualTo(0x00FF_FFFF_FFFF_FFFFL);
            assertThat(region.buffer().getLong(8)).isEqualTo(0x0100_0000_0000_0000L);
            lb.client.qp.postSend(SendWorkRequest.compareAndSwap(2, region.stag(), 3, 0, 9));
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isZero();
            assertThat(region.buffer().getLong(0)).isEqualTo(9);
            lb.assertNoTerminate();
            region.close();
        }
    }

    @Test
    void rfc7306AtomicsNeedOneContiguousBufferSoACompositeIsRefusedAtRegistration() throws Exception {
        // A CompositeByteBuf of direct components is direct, and Writes place into it; but an atomic works through
        // one ByteBuffer view of the memory, which a composite does not have (nioBuffer would be a copy).
        try (Loopback lb = Loopback.withExtensions()) {
            io.netty.buffer.CompositeByteBuf memory = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer();
            memory.addComponents(true, PooledByteBufAllocator.DEFAULT.directBuffer(32, 32).writeZero(32),
                    PooledByteBufAllocator.DEFAULT.directBuffer(32, 32).writeZero(32));
            try {
                assertThatThrownBy(() -> lb.server.pd.register(memory,
                        Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC)))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one contiguous buffer");
                MemoryRegion writable = lb.server.pd.register(memory, Access.of(Access.LOCAL_WRITE,
                        Access.REMOTE_WRITE));
                writable.close();
            } finally {
                memory.release();
            }
        }
    }

    @ParameterizedTest(name = "TO offset {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 12, 0x1003})
    void rfc7306Section5_2_1AnUnalignedRemoteTaggedOffsetIsPostedForOnlyTheResponderKnowsTheAddress(long to) {
        // §5.2.1: the Remote TO "MAY start at an arbitrary offset"; whether its word is aligned (§8.2) depends on
        // the responder's memory, so the requester does not refuse it.
        assertThat(SendWorkRequest.fetchAdd(1, 0x1234, to, 1).remoteTaggedOffset()).isEqualTo(to);
        assertThat(SendWorkRequest.compareAndSwap(1, 0x1234, to, 0, 1).remoteTaggedOffset()).isEqualTo(to);
        assertThat(SendWorkRequest.maskedFetchAdd(1, 0x1234, to, 1, -1L).remoteTaggedOffset()).isEqualTo(to);
        assertThat(SendWorkRequest.maskedCompareAndSwap(1, 0x1234, to, 0, -1L, 1, -1L).remoteTaggedOffset())
                .isEqualTo(to);
    }

    // ---- (b), (c) Immediate Data ----

    @Test
    void rfc7306Section7WriteWithImmediateCompletesTheReceiveOnlyAfterTheWriteIsPlaced() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            int size = 200_000; // several FPDUs, so the Immediate Data cannot overtake a partly placed Write
            MemoryRegion target = Loopback.zeroed(lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(77, ScatterGatherEntry.of(receive)));
            MemoryRegion source = lb.client.allocate(size, Access.LOCAL_WRITE);
            byte[] data = VerbsLoopbackTest.pattern(size, 7306);
            source.buffer().setBytes(0, data);
            RemoteMemory remote = target.advertise();

            lb.client.qp.postSend(SendWorkRequest.writeWithImmediate(5, remote.stag(), remote.taggedOffset(), 0x1234L,
                    ScatterGatherEntry.of(source)));

            WorkCompletion received = lb.server.nextSuccess();
            // Checked before anything else: the completion itself is the promise that the octets are there.
            byte[] placed = ByteBufUtil.getBytes(target.buffer(), 0, size);
            assertThat(received.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
            assertThat(received.wrId()).isEqualTo(77);
            assertThat(received.immediateData()).isEqualTo(0x1234L);
            assertThat(received.byteLength()).as("Immediate Data places nothing in the receive buffer").isZero();
            assertThat(received.solicited()).isFalse();
            assertThat(placed).isEqualTo(data);
            assertThat(ByteBufUtil.getBytes(receive.buffer(), 0, 64)).containsOnly(0);

            WorkCompletion sent = lb.client.nextSuccess();
            assertThat(sent.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE_WITH_IMMEDIATE);
            assertThat(sent.wrId()).isEqualTo(5);
            lb.assertNoTerminate();
            target.close();
            receive.close();
            source.close();
        }
    }

    @Test
    void rfc7306Section6_2ImmediateDataCarriesAll64BitsAndConsumesReceivesInOrder() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(receive)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(3, ScatterGatherEntry.of(receive)));
            MemoryRegion source = lb.client.allocate(10, Access.LOCAL_WRITE);

            lb.client.qp.postSend(SendWorkRequest.immediateData(11, 0x8000_0000_0000_0001L));
            lb.client.qp.postSend(SendWorkRequest.send(12, ScatterGatherEntry.of(source)));
            lb.client.qp.postSend(SendWorkRequest.immediateData(13, -1L));

            WorkCompletion first = lb.server.nextSuccess();
            assertThat(first.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
            assertThat(first.wrId()).isEqualTo(1);
            assertThat(first.immediateData()).isEqualTo(0x8000_0000_0000_0001L);
            WorkCompletion second = lb.server.nextSuccess();
            assertThat(second.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(second.wrId()).isEqualTo(2);
            assertThat(second.byteLength()).isEqualTo(10);
            WorkCompletion third = lb.server.nextSuccess();
            assertThat(third.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
            assertThat(third.wrId()).isEqualTo(3);
            assertThat(third.immediateData()).isEqualTo(-1L);

            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.IMMEDIATE_DATA);
            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.SEND);
            assertThat(lb.client.nextSuccess().opcode()).isEqualTo(WorkCompletionOpcode.IMMEDIATE_DATA);
            lb.assertNoTerminate();
            receive.close();
            source.close();
        }
    }

    @Test
    void rfc7306Section6_1ImmediateDataWithSolicitedEventIsReportedAsSolicited() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(receive)));

            lb.client.qp.postSend(SendWorkRequest.immediateData(3, 0xCAFEL));
            lb.client.qp.postSend(SendWorkRequest.immediateData(4, 0xBEEFL).withSolicitedEvent());

            WorkCompletion plain = lb.server.nextSuccess();
            assertThat(plain.immediateData()).isEqualTo(0xCAFEL);
            assertThat(plain.solicited()).isFalse();
            WorkCompletion solicited = lb.server.nextSuccess();
            assertThat(solicited.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
            assertThat(solicited.immediateData()).isEqualTo(0xBEEFL);
            assertThat(solicited.solicited()).isTrue();
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(3);
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(4);
            lb.assertNoTerminate();
            receive.close();
        }
    }

    @Test
    void rfc7306Section6AZeroLengthWriteWithImmediateIsADoorbell() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            MemoryRegion target = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            RemoteMemory remote = target.advertise();

            lb.client.qp.postSend(SendWorkRequest.writeWithImmediate(2, remote, 0x0D00_0BE1L).withSolicitedEvent());

            WorkCompletion received = lb.server.nextSuccess();
            assertThat(received.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
            assertThat(received.immediateData()).isEqualTo(0x0D00_0BE1L);
            assertThat(received.solicited()).as("the Solicited Event rides on the Immediate Data").isTrue();
            WorkCompletion sent = lb.client.nextSuccess();
            assertThat(sent.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE_WITH_IMMEDIATE);
            assertThat(sent.byteLength()).isZero();
            assertThat(ByteBufUtil.getBytes(target.buffer(), 0, 64)).containsOnly(0);
            lb.assertNoTerminate();
            target.close();
            receive.close();
        }
    }

    @Test
    void rfc7306Section6_1ACompletionQueueArmedForSolicitedEventsWakesForImmediateDataWithSe() throws Exception {
        try (Loopback lb = Loopback.withExtensions()) {
            CountDownLatch notified = new CountDownLatch(1);
            lb.server.cq.setListener(q -> notified.countDown());
            lb.server.cq.requestNotification(true);
            MemoryRegion receive = Loopback.zeroed(lb.server.allocate(64, Access.LOCAL_WRITE));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            lb.server.qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(receive)));

            lb.client.qp.postSend(SendWorkRequest.immediateData(3, 1));
            lb.client.nextSuccess();
            assertThat(lb.server.nextSuccess().solicited()).isFalse();
            assertThat(notified.getCount()).as("no event for Immediate Data without SE").isEqualTo(1);
            lb.client.qp.postSend(SendWorkRequest.immediateData(4, 2).withSolicitedEvent());
            assertThat(notified.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(lb.server.nextSuccess().solicited()).isTrue();
            lb.assertNoTerminate();
            receive.close();
        }
    }

    // ---- (d) negotiation ----

    @Test
    void extensionsOfferedByTheInitiatorAloneAreNotUsed() throws Exception {
        try (Loopback lb = new Loopback(MpaSettings.defaults(), Loopback.EXTENSIONS, UnaryOperator.identity())) {
            assertThat(lb.client.qp.extensions()).isEqualTo(RdmapExtensions.NONE);
            assertThat(lb.server.qp.extensions()).isEqualTo(RdmapExtensions.NONE);
            assertThatThrownBy(() -> lb.client.qp.postSend(SendWorkRequest.fetchAdd(1, 0x100, 0, 1)))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> lb.client.qp.postSend(SendWorkRequest.immediateData(2, 1)))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> lb.server.qp.postSend(SendWorkRequest.compareAndSwap(3, 0x100, 0, 0, 1)))
                    .isInstanceOf(IllegalStateException.class);
            lb.assertNoTerminate();
        }
    }

    @Test
    void extensionsOfferedByTheResponderAloneAreNotUsed() throws Exception {
        try (Loopback lb = new Loopback(MpaSettings.defaults(), UnaryOperator.identity(), Loopback.EXTENSIONS)) {
            assertThat(lb.client.qp.extensions()).isEqualTo(RdmapExtensions.NONE);
            assertThat(lb.server.qp.extensions()).isEqualTo(RdmapExtensions.NONE);
            assertThatThrownBy(() -> lb.server.qp.postSend(SendWorkRequest.fetchAdd(1, 0x100, 0, 1)))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> lb.client.qp.postSend(SendWorkRequest.immediateData(2, 1)))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void bothEndsUseOnlyWhatBothOffered() throws Exception {
        try (Loopback lb = new Loopback(MpaSettings.defaults(), Loopback.EXTENSIONS,
                c -> c.withExtensions(new RdmapExtensions(true, false)))) {
            RdmapExtensions atomicsOnly = new RdmapExtensions(true, false);
            assertThat(lb.client.qp.extensions()).isEqualTo(atomicsOnly);
            assertThat(lb.server.qp.extensions()).isEqualTo(atomicsOnly);
            assertThatThrownBy(() -> lb.client.qp.postSend(SendWorkRequest.immediateData(1, 1)))
                    .isInstanceOf(IllegalStateException.class);
            MemoryRegion region = Loopback.zeroed(lb.server.allocate(8, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(2, region.stag(), 0, 5));
            assertThat(lb.client.nextSuccess().atomicOriginalValue()).isZero();
            assertThat(region.buffer().getLong(0)).isEqualTo(5);
            lb.assertNoTerminate();
            region.close();
        }
    }

    // ---- (e) atomics and ORD ----

    @Test
    void rfc7306Section5_2AtomicsShareTheReadRequestQueueAndAreHeldBackByOrd() throws Exception {
        UnaryOperator<QueuePairConfig> shallow = c -> c.withExtensions(RdmapExtensions.ALL).withReadDepths(2, 2);
        try (Loopback lb = new Loopback(MpaSettings.defaults(), shallow, shallow)) {
            assertThat(lb.client.qp.ord()).isEqualTo(2);
            MemoryRegion remoteRegion = Loopback.zeroed(lb.server.allocate(4096,
                    Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));
            byte[] data = VerbsLoopbackTest.pattern(4096, 5);
            remoteRegion.buffer().setBytes(0, data);
            remoteRegion.buffer().setLong(4088, 0);
            RemoteMemory remote = remoteRegion.advertise();
            MemoryRegion sink = lb.client.allocate(2 * 1000, Access.LOCAL_WRITE);

            // Five operations on the Read Request queue at once against IRD 2: sending them all would be
            // beyond the peer's IRD, which it must Terminate (RFC 7306 §5.2, as RFC 5040 §6.1 for Reads).
            lb.client.qp.postSend(SendWorkRequest.read(1, new ScatterGatherEntry(sink, 0, 1000), remote.stag(),
                    remote.taggedOffset()));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(2, remote.stag(), remote.taggedOffset() + 4088, 1));
            lb.client.qp.postSend(SendWorkRequest.read(3, new ScatterGatherEntry(sink, 1000, 1000), remote.stag(),
                    remote.taggedOffset() + 1000));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(4, remote.stag(), remote.taggedOffset() + 4088, 1));
            lb.client.qp.postSend(SendWorkRequest.fetchAdd(5, remote.stag(), remote.taggedOffset() + 4088, 1));

            long nextOriginal = 0;
            for (int wrId = 1; wrId <= 5; wrId++) {
                WorkCompletion c = lb.client.nextSuccess();
                assertThat(c.wrId()).as("completions in posting order").isEqualTo(wrId);
                if (wrId == 1 || wrId == 3) {
                    assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                } else {
                    assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_FETCH_ADD);
                    assertThat(c.atomicOriginalValue()).isEqualTo(nextOriginal++);
                }
            }
            assertThat(remoteRegion.buffer().getLong(4088)).isEqualTo(3);
            assertThat(ByteBufUtil.getBytes(sink.buffer(), 0, 2000))
                    .isEqualTo(java.util.Arrays.copyOf(data, 2000));
            assertThat(lb.client.qp.state()).isEqualTo(QueuePairState.RTS);
            assertThat(lb.server.qp.state()).isEqualTo(QueuePairState.RTS);
            lb.assertNoTerminate();
            remoteRegion.close();
            sink.close();
        }
    }

    @Test
    void rfc7306Section5_2ManyAtomicsBehindAnOrdOfOneAllComplete() throws Exception {
        UnaryOperator<QueuePairConfig> one = c -> c.withExtensions(RdmapExtensions.ALL).withReadDepths(1, 1);
        try (Loopback lb = new Loopback(MpaSettings.defaults(), one, one)) {
            MemoryRegion region = Loopback.zeroed(lb.server.allocate(8, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            for (int i = 0; i < 100; i++) {
                lb.client.qp.postSend(SendWorkRequest.fetchAdd(i, region.stag(), 0, 1));
            }
            for (int i = 0; i < 100; i++) {
                WorkCompletion c = lb.client.nextSuccess();
                assertThat(c.wrId()).isEqualTo(i);
                assertThat(c.atomicOriginalValue()).isEqualTo(i);
            }
            assertThat(region.buffer().getLong(0)).isEqualTo(100);
            lb.assertNoTerminate();
            region.close();
        }
    }

    // ---- (f) one word, many connections ----

    private static final int CONNECTIONS = 4;
    private static final int FETCH_ADDS_PER_CONNECTION = 5_000;
    /** Outstanding atomics per queue pair: well inside the send queue (128) and ORD (128). */
    private static final int WINDOW = 64;

    /** One direct buffer, the same memory registered once in the server domain of each connection. */
    private static final class SharedWord implements AutoCloseable {
        final ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
        final List<Loopback> connections = new ArrayList<>();
        final List<MemoryRegion> regions = new ArrayList<>();
        final int index;
        final long taggedOffset;

        /** The word at an aligned memory address (RFC 7306 §8.2), at a TO that is not a multiple of 8. */
        SharedWord(int connections) throws Exception {
            memory.setZero(0, 64).writerIndex(64);
            int toAligned = (8 - memory.nioBuffer(0, 64).alignmentOffset(0, Long.BYTES)) & 7;
            index = toAligned + 8;
            long base = 5; // the TO is index + 5: any TO is valid when its word's address is aligned (§5.2.1)
            taggedOffset = base + index;
            try {
                for (int i = 0; i < connections; i++) {
                    Loopback lb = Loopback.withExtensions();
                    this.connections.add(lb);
                    // register retains the buffer for the region; this object keeps its own reference.
                    regions.add(lb.server.pd.register(memory, Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC),
                            base));
                }
            } catch (Exception | Error e) {
                close();
                throw e;
            }
            assertThat(memory.nioBuffer(0, 64).alignmentOffset(index, Long.BYTES)).isZero();
        }

        long value() {
            return memory.getLong(index);
        }

        @Override
        public void close() throws Exception {
            try {
                for (MemoryRegion r : regions) {
                    r.close();
                }
                for (Loopback lb : connections) {
                    lb.close();
                }
            } finally {
                memory.release();
            }
        }
    }

    /** Runs {@code perConnection} for each connection on its own thread; returns what each returned. */
    private static List<long[]> onEachConnection(SharedWord word, ConnectionTask perConnection) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(word.connections.size());
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (int i = 0; i < word.connections.size(); i++) {
                Loopback lb = word.connections.get(i);
                int stag = word.regions.get(i).stag();
                futures.add(threads.submit(() -> perConnection.run(lb, stag, word.taggedOffset)));
            }
            List<long[]> results = new ArrayList<>();
            for (Future<long[]> f : futures) {
                results.add(f.get(8, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface ConnectionTask {
        long[] run(Loopback lb, int stag, long taggedOffset) throws Exception;
    }

    /** Posts {@code count} Fetch-and-Add(1), at most {@link #WINDOW} outstanding; returns the originals. */
    private static long[] fetchAdds(Loopback lb, int stag, long taggedOffset, int count) throws Exception {
        long[] originals = new long[count];
        int posted = 0;
        int done = 0;
        while (done < count) {
            while (posted < count && posted - done < WINDOW) {
                lb.client.qp.postSend(SendWorkRequest.fetchAdd(posted, stag, taggedOffset, 1));
                posted++;
            }
            WorkCompletion c = lb.client.nextSuccess();
            if (c.wrId() != done || c.opcode() != WorkCompletionOpcode.ATOMIC_FETCH_ADD) {
                throw new AssertionError("expected the Fetch-and-Add " + done + ", got " + c);
            }
            originals[done++] = c.atomicOriginalValue();
        }
        return originals;
    }

    /** Asserts that the values are exactly 0..n-1, each once. */
    private static void assertExactlyZeroTo(List<long[]> values, int n) {
        BitSet seen = new BitSet(n);
        int count = 0;
        for (long[] v : values) {
            for (long x : v) {
                assertThat(x).isBetween(0L, n - 1L);
                assertThat(seen.get((int) x)).as("original %d returned twice", x).isFalse();
                seen.set((int) x);
                count++;
            }
        }
        assertThat(count).isEqualTo(n);
        assertThat(seen.cardinality()).isEqualTo(n);
    }

    @Test
    void rfc7306Section5_3FetchAddOnAWordSharedByFourConnectionsIsLinearizable() throws Exception {
        try (SharedWord word = new SharedWord(CONNECTIONS)) {
            List<long[]> originals = onEachConnection(word,
                    (lb, stag, to) -> fetchAdds(lb, stag, to, FETCH_ADDS_PER_CONNECTION));

            int total = CONNECTIONS * FETCH_ADDS_PER_CONNECTION;
            assertThat(word.value()).isEqualTo(total);
            // Every Fetch-and-Add saw a different value, and together they saw every value once: no two were
            // interleaved, none was lost.
            assertExactlyZeroTo(originals, total);
            for (long[] one : originals) {
                // One stream's atomics are carried out in its order (RFC 7306 §5.4 rule 8): its view only grows.
                assertThat(one).isSorted();
            }
            for (Loopback lb : word.connections) {
                lb.assertNoTerminate();
            }
        }
    }

    @Test
    void rfc7306Section5_3CompareAndSwapIncrementsOnASharedWordLoseNoUpdate() throws Exception {
        int connections = 3;
        int successesEach = 1_000;
        try (SharedWord word = new SharedWord(connections)) {
            List<long[]> successes = onEachConnection(word, (lb, stag, to) -> {
                long[] won = new long[successesEach];
                long expect = 0;
                long wrId = 0;
                for (int n = 0; n < successesEach; ) {
                    lb.client.qp.postSend(SendWorkRequest.compareAndSwap(wrId++, stag, to, expect, expect + 1));
                    long original = lb.client.nextSuccess().atomicOriginalValue();
                    if (original == expect) {
                        won[n++] = original;
                        expect = original + 1;
                    } else {
                        // The failure told us the current value: the next attempt needs no separate read.
                        expect = original;
                    }
                }
                return won;
            });

            int total = connections * successesEach;
            assertThat(word.value()).isEqualTo(total);
            assertExactlyZeroTo(successes, total);
            for (Loopback lb : word.connections) {
                lb.assertNoTerminate();
            }
        }
    }
}
