package io.softrdma.verbs;

import static io.softrdma.verbs.RawPeer.readRequest;
import static io.softrdma.verbs.RawPeer.tagged;
import static io.softrdma.verbs.RawPeer.terminate;
import static io.softrdma.verbs.RawPeer.untagged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.testing.Hex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Every Terminate case of RFC 5040 §7 and the DDP error table (RFC 5041 §7.2), provoked by a peer that
 * sends the offending bytes; each test checks the exact Terminate that comes back (RFC 5040 §4.8, §7.1,
 * Figure 10), that the stream then closes, and that the queue pair under test ends in ERROR with every
 * outstanding work request completed.
 */
class TerminateTest {
    private static final String PAYLOAD16 = "00112233445566778899aabbccddeeff";
    /** The Terminate-delivery case: Reads of 1 MiB, eight of them backed up behind a peer that does not read. */
    private static final int DELIVERY_SIZE = 1 << 20;
    private static final int DELIVERY_READS = 8;

    private final AcceptedRawPeer fixture = new AcceptedRawPeer();
    private final RdmaDevice device = fixture.device;
    private final ProtectionDomain pd = fixture.pd;
    private final CompletionQueue cq = fixture.cq;
    private QueuePair qp;
    private RawPeer peer;
    private RdmaConnection accepted;

    /** Connects a raw peer to a queue pair under test that accepted it. */
    private RawPeer connect(UnaryOperator<QueuePairConfig> config, MpaSettings settings) throws Exception {
        peer = fixture.connect(config, settings, new byte[0]);
        qp = fixture.qp;
        accepted = fixture.accepted;
        return peer;
    }

    private RawPeer connect() throws Exception {
        return connect(UnaryOperator.identity(), MpaSettings.defaults());
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private void expectTerminate(String expectedUlpdu, String codeName) throws Exception {
        peer.expectTerminate(qp, expectedUlpdu, codeName);
    }


    private static Throwable failure(QueuePair qp) throws Exception {
        try {
            qp.closeFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError("the queue pair closed normally");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static String header(String ulpdu, int octets) {
        return ulpdu.substring(0, 2 * octets);
    }

    private static int length(String ulpdu) {
        return ulpdu.length() / 2;
    }

    private MemoryRegion region(int length, Access first, Access... rest) {
        return pd.allocate(length, Access.of(first, rest));
    }

    // ---- a ULPDU too short for any DDP header (RFC 5044 §8) ----

    @org.junit.jupiter.params.ParameterizedTest(name = "ULPDU {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"41", "414000", "41400000", "c1400000",
            "4140000000000000000000000100000000" /* untagged, 17 of 18 */,
            "c1400000000100000000000000" /* tagged, 13 of 14 */})
    void rfc5044Section8AnFpduWhoseUlpduLengthIsShorterThanItsDdpHeaderSendsTheFramingError(String ulpdu)
            throws Exception {
        // No RFC 5041 code fits a segment with no room for its header; RFC 5044 §8 code 3 (ULPDU_Length does not
        // agree with the FPDU's start) does, and Linux siw sends it since its fix of CVE-2026-64102. An LLP error
        // carries no headers (RFC 5040 §7.1, Figure 10).
        connect();
        peer.send(ulpdu);
        expectTerminate(terminate(2, 0, 0x03, "", 0, ""), "MARKER_AND_ULPDU_LENGTH_MISMATCH");
    }

    // ---- DDP tagged buffer errors (RFC 5041 §7.2, Layer 1 EType 1) ----

    @Test
    void rdmaWriteToAnUnknownStagSendsInvalidStag() throws Exception {
        connect();
        String w = tagged(0, true, 0x00abcd01, 0) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x00, header(w, 14), length(w), ""), "TAGGED_INVALID_STAG");
    }

    @Test
    void rdmaWriteWithAStaleKeySendsInvalidStag() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        int old = r.stag();
        r.invalidate();
        r.reregister();
        String w = tagged(0, true, old, 0) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x00, header(w, 14), length(w), ""), "TAGGED_INVALID_STAG");
    }

    @Test
    void rdmaWriteBeyondTheRegionSendsBaseOrBoundsViolation() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        String w = tagged(0, true, r.stag(), 56) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x01, header(w, 14), length(w), ""), "TAGGED_BASE_OR_BOUNDS");
    }

    @Test
    void rdmaWriteWithoutRemoteWriteAccessSendsInvalidStagAsLinuxSiwDoes() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE, Access.REMOTE_READ);
        String w = tagged(0, true, r.stag(), 0) + PAYLOAD16;
        peer.send(w);
        // RFC 5041 §7.2 has no access-rights code for tagged buffers.
        expectTerminate(terminate(1, 1, 0x00, header(w, 14), length(w), ""), "TAGGED_INVALID_STAG");
    }

    @Test
    void rdmaWriteToARegionOfAnotherProtectionDomainSendsStagNotAssociated() throws Exception {
        connect();
        ProtectionDomain other = device.allocateProtectionDomain();
        MemoryRegion r = other.allocate(64, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        String w = tagged(0, true, r.stag(), 0) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x02, header(w, 14), length(w), ""), "TAGGED_STAG_NOT_ASSOCIATED");
        other.close();
    }

    @Test
    void rdmaWriteWhoseOffsetWrapsSendsToWrap() throws Exception {
        connect();
        ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        MemoryRegion r = pd.register(memory, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), -8192L);
        memory.release();
        String w = tagged(0, true, r.stag(), -8L) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x03, header(w, 14), length(w), ""), "TAGGED_TO_WRAP");
    }

    @Test
    void taggedSegmentWithDdpVersion2SendsInvalidDdpVersion() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        String w = "c240" + tagged(0, true, r.stag(), 0).substring(4) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x04, header(w, 14), length(w), ""), "TAGGED_INVALID_VERSION");
    }

    @Test
    void continuationSegmentToAnotherStagSendsInvalidStag() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion s = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        peer.send(tagged(0, false, r.stag(), 0) + PAYLOAD16);
        String w = tagged(0, true, s.stag(), 16) + PAYLOAD16;
        peer.send(w);
        expectTerminate(terminate(1, 1, 0x00, header(w, 14), length(w), ""), "TAGGED_INVALID_STAG");
    }

    // ---- DDP untagged buffer errors (RFC 5041 §7.2, Layer 1 EType 2) ----

    @Test
    void untaggedSegmentWithDdpVersion0SendsInvalidDdpVersion() throws Exception {
        connect();
        String s = "4043" + untagged(3, true, 0, 0, 1, 0).substring(4) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x06, header(s, 18), length(s), ""), "UNTAGGED_INVALID_VERSION");
    }

    @Test
    void sendOnQueueNumber3SendsInvalidQn() throws Exception {
        connect();
        String s = untagged(3, true, 0, 3, 1, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x01, header(s, 18), length(s), ""), "UNTAGGED_INVALID_QN");
    }

    @Test
    void sendWithoutAPostedReceiveSendsNoBufferAvailable() throws Exception {
        connect();
        String s = untagged(3, true, 0, 0, 1, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x02, header(s, 18), length(s), ""), "UNTAGGED_NO_BUFFER");
    }

    @Test
    void sendWithAnUnexpectedMsnSendsMsnRangeNotValid() throws Exception {
        connect();
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(region(64, Access.LOCAL_WRITE))));
        String s = untagged(3, true, 0, 0, 5, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x03, header(s, 18), length(s), ""), "UNTAGGED_MSN_RANGE");
        WorkCompletion flushed = cq.take(Duration.ofSeconds(5));
        assertThat(flushed.status()).as("the posted receive is flushed").isEqualTo(WorkCompletionStatus.FLUSHED);
    }

    @Test
    void sendWithAWrongMessageOffsetSendsInvalidMo() throws Exception {
        connect();
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(region(64, Access.LOCAL_WRITE))));
        String s = untagged(3, true, 0, 0, 1, 8) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x04, header(s, 18), length(s), ""), "UNTAGGED_INVALID_MO");
    }

    @Test
    void sendLongerThanTheReceiveBufferSendsMessageTooLong() throws Exception {
        connect();
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(region(8, Access.LOCAL_WRITE))));
        String s = untagged(3, true, 0, 0, 1, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x05, header(s, 18), length(s), ""), "UNTAGGED_MESSAGE_TOO_LONG");
        WorkCompletion c = cq.take(Duration.ofSeconds(5));
        assertThat(c.status()).isEqualTo(WorkCompletionStatus.LOCAL_LENGTH_ERROR);
    }

    @Test
    void rfc5044Section8AReadRequestShorterThanItsHeaderSendsTheFramingError() throws Exception {
        // RFC 5040 §4.4: 28 octets after the DDP header. Linux siw checks the minimum length per opcode too.
        connect();
        peer.send(readRequest(1, 1, 0, 8, 2, 0).substring(0, 2 * (18 + 27)));
        expectTerminate(terminate(2, 0, 0x03, "", 0, ""), "MARKER_AND_ULPDU_LENGTH_MISMATCH");
    }

    @Test
    void readRequestLongerThanItsHeaderSendsMessageTooLong() throws Exception {
        connect();
        String s = readRequest(1, 1, 0, 8, 2, 0) + "00000000";
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x05, header(s, 18), length(s), ""), "UNTAGGED_MESSAGE_TOO_LONG");
    }

    // ---- RDMAP errors (RFC 5040 §4.8 Figure 9, §7.2) ----

    @Test
    void rdmapVersion0SendsInvalidRdmapVersion() throws Exception {
        connect();
        String s = "4103" + untagged(3, true, 0, 0, 1, 0).substring(4) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x05, header(s, 18), length(s), ""), "OPERATION_INVALID_VERSION");
    }

    @Test
    void reservedOpcodeSendsUnexpectedOpcode() throws Exception {
        connect();
        String s = untagged(12, true, 0, 0, 1, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, header(s, 18), length(s), ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void sendMarkedTaggedSendsUnexpectedOpcode() throws Exception {
        connect();
        String s = tagged(3, true, 0, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, header(s, 14), length(s), ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void readResponseWithNoReadOutstandingSendsUnexpectedOpcode() throws Exception {
        connect();
        String s = tagged(2, true, 0x01020304, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, header(s, 14), length(s), ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void readRequestInsideAnUnfinishedSendSendsUnexpectedOpcode() throws Exception {
        connect();
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(region(64, Access.LOCAL_WRITE))));
        peer.send(untagged(3, false, 0, 0, 1, 0) + PAYLOAD16);
        String s = readRequest(1, 1, 0, 0, 2, 0);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, header(s, 18), length(s), ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void readRequestBeyondIrdSendsCatastrophicStreamErrorAsLinuxSiwDoes() throws Exception {
        connect(c -> c.withReadDepths(16, 0), MpaSettings.defaults());
        MemoryRegion r = region(64, Access.REMOTE_READ);
        String s = readRequest(1, 0x77, 0, 16, r.stag(), 0);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x07, header(s, 18), length(s), ""), "OPERATION_CATASTROPHIC_STREAM");
    }

    @Test
    void sendWithInvalidateOfAnUnknownStagSendsCannotInvalidate() throws Exception {
        connect();
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(region(64, Access.LOCAL_WRITE))));
        String s = untagged(4, true, 0x00bbbb02, 0, 1, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x09, header(s, 18), length(s), ""), "PROTECTION_CANNOT_INVALIDATE");
    }

    @Test
    void readRequestForAnUnknownSourceStagSendsInvalidStagWithItsHeader() throws Exception {
        connect();
        String s = readRequest(1, 0x11, 0x20, 16, 0x00cccc03, 0);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x00, header(s, 18), length(s), s.substring(36)), "PROTECTION_INVALID_STAG");
    }

    @Test
    void readRequestBeyondTheSourceSendsBaseOrBoundsWithItsHeader() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.REMOTE_READ);
        String s = readRequest(1, 0x11, 0x20, 16, r.stag(), 56);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x01, header(s, 18), length(s), s.substring(36)),
                "PROTECTION_BASE_OR_BOUNDS");
    }

    @Test
    void readRequestWithoutRemoteReadAccessSendsAccessRightsViolation() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        String s = readRequest(1, 0x11, 0x20, 16, r.stag(), 0);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x02, header(s, 18), length(s), s.substring(36)),
                "PROTECTION_ACCESS_RIGHTS");
    }

    @Test
    void readRequestFromARegionOfAnotherProtectionDomainSendsStagNotAssociated() throws Exception {
        connect();
        ProtectionDomain other = device.allocateProtectionDomain();
        MemoryRegion r = other.allocate(64, Access.of(Access.REMOTE_READ));
        String s = readRequest(1, 0x11, 0x20, 16, r.stag(), 0);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x03, header(s, 18), length(s), s.substring(36)),
                "PROTECTION_STAG_NOT_ASSOCIATED");
        other.close();
    }

    @Test
    void readRequestWhoseSourceOffsetWrapsSendsToWrap() throws Exception {
        connect();
        ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        MemoryRegion r = pd.register(memory, Access.of(Access.REMOTE_READ), -8192L);
        memory.release();
        String s = readRequest(1, 0x11, 0x20, 16, r.stag(), -8L);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x04, header(s, 18), length(s), s.substring(36)), "PROTECTION_TO_WRAP");
    }

    @Test
    void zeroLengthReadRequestIsAnsweredWithoutCheckingTheSource() throws Exception {
        connect();
        peer.send(readRequest(1, 0x11, 0x20, 0, 0x00dddd04, 0));
        // RFC 5040 §5.2.1: a zero-length Read Response to the sink.
        assertThat(peer.next()).isEqualTo(tagged(2, true, 0x11, 0x20));
        assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
    }

    // ---- LLP (MPA) errors, Layer 2 EType 0 (RFC 5044 §8) ----

    /** A responder may send only after a valid FPDU (RFC 5044 §7.1.2 rule 4): a zero-length Write opens it. */
    private void openResponder() {
        peer.send(tagged(0, true, 1, 0));
    }

    @Test
    void badCrcSendsLlpCrcErrorWithoutHeaders() throws Exception {
        connect();
        openResponder();
        byte[] fpdu = io.softrdma.mpa.FpduTestSupportAccess.encode(Hex.bytes(untagged(3, true, 0, 0, 1, 0)));
        fpdu[fpdu.length - 1] ^= 1;
        peer.sendRaw(fpdu);
        expectTerminate(terminate(2, 0, 0x02, "", 0, ""), "CRC_ERROR");
    }

    @Test
    void rfc5044Section7_1_2Rule4AResponderWhoseFirstFpduIsBadSendsNoTerminateAndCloses() throws Exception {
        connect();
        byte[] fpdu = io.softrdma.mpa.FpduTestSupportAccess.encode(Hex.bytes(untagged(3, true, 0, 0, 1, 0)));
        fpdu[fpdu.length - 1] ^= 1;
        peer.sendRaw(fpdu);
        assertThat(peer.awaitClose()).isTrue();
        assertThat(peer.received).as("nothing may be sent before a valid FPDU arrived").isEmpty();
        assertThat(((TerminateException) failure(qp)).code().name()).isEqualTo("CRC_ERROR");
    }

    @Test
    void receiveBufferInvalidatedBeforeTheSendArrivesSendsLocalCatastrophic() throws Exception {
        connect();
        MemoryRegion r = region(64, Access.LOCAL_WRITE);
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(r)));
        r.invalidate();
        String s = untagged(3, true, 0, 0, 1, 0) + PAYLOAD16;
        peer.send(s);
        expectTerminate(terminate(1, 0, 0x00, header(s, 18), length(s), ""), "LOCAL_CATASTROPHIC");
        assertThat(cq.take(Duration.ofSeconds(5)).status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
    }

    // ---- Terminates received (RFC 5040 §5.4) ----

    @Test
    void aReceivedTerminateIsReportedWithItsCodesAndFlushesOutstandingWork() throws Exception {
        connect();
        MemoryRegion sink = region(64, Access.LOCAL_WRITE);
        qp.postReceive(ReceiveWorkRequest.of(9, ScatterGatherEntry.of(sink)));
        openResponder();
        qp.postSend(SendWorkRequest.read(10, ScatterGatherEntry.of(sink), 0x42, 0));
        assertThat(peer.next()).startsWith(untagged(1, true, 0, 1, 1, 0));
        String ddp = untagged(3, true, 0, 3, 1, 0);
        peer.send(terminate(1, 2, 0x01, ddp, 34, ""));
        Throwable t = failure(qp);
        assertThat(t).isInstanceOf(TerminateException.class);
        TerminateException te = (TerminateException) t;
        assertThat(te.remote()).isTrue();
        assertThat(te.code().name()).isEqualTo("UNTAGGED_INVALID_QN");
        assertThat(te.received().siwLayout()).isFalse();
        assertThat(Hex.hex(te.received().ddpHeader())).isEqualTo(ddp);
        List<WorkCompletionStatus> statuses = new ArrayList<>();
        statuses.add(cq.take(Duration.ofSeconds(5)).status());
        statuses.add(cq.take(Duration.ofSeconds(5)).status());
        assertThat(statuses).containsOnly(WorkCompletionStatus.FLUSHED);
        assertThat(peer.awaitClose()).as("the stream closes after a received Terminate").isTrue();
    }

    @Test
    void aTerminateInLinuxSiwsByteOrderIsDecodedToo() throws Exception {
        connect();
        // siw 6.1: "invalid QN, M and D" arrives as 21 01 03 00.
        String ddp = untagged(3, true, 0, 3, 1, 0);
        peer.send(untagged(7, true, 0, 2, 1, 0) + "21010300" + "0022" + ddp);
        TerminateException te = (TerminateException) failure(qp);
        assertThat(te.code().name()).isEqualTo("UNTAGGED_INVALID_QN");
        assertThat(te.received().siwLayout()).isTrue();
        assertThat(te.received().ambiguous()).isTrue();
        assertThat(te.received().segmentLength()).isEqualTo(0x22);
    }

    // ---- ORD (RFC 5040 §6.1) ----

    @Test
    void rfc5040Section6_1NoMoreThanOrdReadRequestsAreOutstanding() throws Exception {
        connect(c -> c.withReadDepths(2, 16), MpaSettings.defaults());
        MemoryRegion sink = region(64, Access.LOCAL_WRITE);
        openResponder();
        for (int i = 0; i < 5; i++) {
            qp.postSend(SendWorkRequest.read(i, new ScatterGatherEntry(sink, 8L * i, 8), 0x42, 8L * i));
        }
        String first = peer.next();
        peer.next();
        // On the event loop, after the task that carried the five posts out: two Read Requests written, not more.
        int[] sentAndOutstanding = ((DefaultQueuePair) qp).ctx.executor().submit(() -> new int[] {
                (int) qp.counters().messages(io.softrdma.rdmap.RdmapOpcode.RDMA_READ_REQUEST, false),
                qp.readsOutstanding()}).get(5, TimeUnit.SECONDS);
        assertThat(sentAndOutstanding).as("Read Requests written and outstanding, with ORD 2").containsExactly(2, 2);
        assertThat(peer.received.poll()).as("a third Read Request beyond ORD 2").isNull();
        int sinkStag = (int) Long.parseLong(first.substring(36, 44), 16);
        peer.send(tagged(2, true, sinkStag, Long.parseLong(first.substring(44, 60), 16)) + "0102030405060708");
        assertThat(peer.next()).as("the third Read Request, once one Read completed")
                .startsWith(untagged(1, true, 0, 1, 3, 0));
        assertThat(cq.take(Duration.ofSeconds(5)).wrId()).isEqualTo(0);
    }

    /**
     * RFC 5040 §6.2: an RDMAP Stream that detects an error sends a Terminate and then closes the LLP stream; the
     * Terminate must reach the peer. It is the last thing sent, often queued behind data TCP has not delivered yet,
     * while the peer may still be sending (Read Requests in flight). Closing the socket with the peer's octets unread
     * makes the kernel reset the connection and drop what it had not sent — the Terminate with it — so the queue pair
     * half-closes instead (FIN after the Terminate), reads on and discards, and closes once the peer has closed or a
     * linger has passed.
     */
    @RepeatedTest(3)
    void rfc5040Section6_2TheTerminateArrivesBehindBackedUpDataWhileThePeerKeepsSending() throws Exception {
        connect(c -> c.withReadDepths(4, 16), MpaSettings.defaults());
        MemoryRegion r = pd.allocate(DELIVERY_SIZE, Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ));

        // Read Responses back up: in the socket, then in the channel's outbound buffer.
        peer.pauseReading();
        for (int i = 0; i < DELIVERY_READS; i++) {
            peer.send(RawPeer.readRequest(1 + i, 0x99, (long) i * DELIVERY_SIZE, DELIVERY_SIZE, r.stag(), 0));
        }
        io.netty.channel.Channel ch = accepted.channel();
        await("Read Responses backed up in the channel").atMost(Duration.ofSeconds(10))
                .until(() -> ch.eventLoop().submit(() -> !ch.isWritable()).get());

        // An RDMA Write to an STag that does not exist: the Terminate queues behind the Read Responses. The peer
        // goes on sending (64-octet Sends, dropped unread by a terminated queue pair) until its stream ends.
        peer.send(tagged(0, true, 0x00abcd01, 0) + "00112233445566778899aabbccddeeff");
        AtomicBoolean sending = new AtomicBoolean(true);
        byte[] filler = Hex.bytes(RawPeer.untagged(0, true, 0, 0, 1, 0) + "00".repeat(64));
        Thread chatter = new Thread(() -> {
            while (sending.get() && peer.channel.isActive()) {
                peer.channel.writeAndFlush(Unpooled.wrappedBuffer(filler)).awaitUninterruptibly();
            }
        }, "chatter");
        chatter.start();
        try {
            peer.resumeReading();
            long octets = 0;
            byte[] u;
            do {
                u = peer.nextUlpdu(10); // fails if the stream ends without the Terminate
                if ((u[0] & 0x80) != 0) {
                    octets += u.length - 14;
                }
            } while ((u[1] & 0x0F) != 0x7); // RDMAP opcode 0111: Terminate (RFC 5040 §4.3)
            // What was framed before the Terminate comes first; Read Responses not yet begun are not sent after it.
            assertThat(octets).as("Read Response octets before the Terminate").isPositive()
                    .isLessThanOrEqualTo((long) DELIVERY_READS * DELIVERY_SIZE);
            // After the 18-octet untagged header: layer 1 (DDP) and error type 1 (tagged buffer), code 0 (invalid
            // STag): RFC 5040 §4.8, RFC 5041 §7.2.
            assertThat(u[18] & 0xFF).as("layer and error type").isEqualTo(0x11);
            assertThat(u[19] & 0xFF).as("TAGGED_INVALID_STAG").isZero();
            assertThat(peer.awaitClose()).as("the stream ends after the Terminate").isTrue();
        } finally {
            sending.set(false);
            chatter.join(5000);
        }
        try {
            qp.closeFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError("the queue pair closed normally");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TerminateException.class);
        }
        r.close();
    }
}
