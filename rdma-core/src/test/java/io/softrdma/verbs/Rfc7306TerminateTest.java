package io.softrdma.verbs;

import static io.softrdma.verbs.RawPeer.tagged;
import static io.softrdma.verbs.RawPeer.terminate;
import static io.softrdma.verbs.RawPeer.untagged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.softrdma.cm.RdmaConnection;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 7306 on the wire, octet by octet, against a raw peer: the Atomic Request and Atomic Response formats, the
 * queues and MSNs they use, Immediate Data, and the Terminate each malformed or forbidden message earns. The raw
 * peer offers the extensions in its MPA Request's private data ({@link RdmapExtensions}), as SoftRDMA does.
 */
class Rfc7306TerminateTest {
    private final AcceptedRawPeer fixture = new AcceptedRawPeer();
    private final RdmaDevice device = fixture.device;
    private final ProtectionDomain pd = fixture.pd;
    private final CompletionQueue cq = fixture.cq;
    private QueuePair qp;
    private RawPeer peer;
    private RdmaConnection accepted;

    private RawPeer connect(UnaryOperator<QueuePairConfig> config, RdmapExtensions offered) throws Exception {
        peer = fixture.connect(c -> config.apply(c.withReadDepths(4, 4)), MpaSettings.defaults(),
                offered.appendTo(new byte[0]));
        qp = fixture.qp;
        accepted = fixture.accepted;
        return peer;
    }

    private RawPeer connect() throws Exception {
        return connect(c -> c.withExtensions(RdmapExtensions.ALL), RdmapExtensions.ALL);
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private void expectTerminate(String expectedUlpdu, String codeName) throws Exception {
        peer.expectTerminate(qp, expectedUlpdu, codeName);
    }


    private static String atomicRequest(int msn, int op, int requestId, int stag, long to, long data, long dataMask,
            long compare, long compareMask) {
        return untagged(0xA, true, 0, 1, msn, 0) + String.format("%08x%08x%08x%016x%016x%016x%016x%016x", op,
                requestId, stag, to, data, dataMask, compare, compareMask);
    }

    private MemoryRegion word(long value, Access first, Access... rest) {
        MemoryRegion r = pd.allocate(64, Access.of(first, rest));
        r.buffer().setZero(0, 64);
        r.buffer().setLong(8, value);
        return r;
    }

    // ---- formats ----

    @Test
    void rfc7306Section5_2_2AtomicResponseIsTwelveOctetsOnQueue3WithItsOwnMsns() throws Exception {
        connect();
        MemoryRegion r = word(40, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        // Fetch-and-Add 2 to the word at TO 8, then Compare-and-Swap 42 -> 7: the Read Request queue's MSNs 1, 2.
        peer.send(atomicRequest(1, 0, 0x11, r.stag(), 8, 2, 0, 0, 0));
        peer.send(atomicRequest(2, 2, 0x12, r.stag(), 8, 7, -1L, 42, -1L));
        assertThat(peer.next()).isEqualTo(untagged(0xB, true, 0, 3, 1, 0) + "00000011" + "0000000000000028");
        assertThat(peer.next()).isEqualTo(untagged(0xB, true, 0, 3, 2, 0) + "00000012" + "000000000000002a");
        assertThat(r.buffer().getLong(8)).isEqualTo(7);
        assertThat(qp.inboundReadsQueued()).isZero();
        r.close();
    }

    @Test
    void rfc7306Section5_2_1AtomicRequestIsFiftyTwoOctetsOnTheReadRequestQueue() throws Exception {
        connect();
        peer.send(tagged(0, true, 1, 0)); // RFC 5044 §7.1.2: the responder waits for the initiator's first FPDU
        qp.postSend(SendWorkRequest.maskedCompareAndSwap(7, 0x1234_5678, 0x40, 5, 0xFF, 9, 0xF0));
        qp.postSend(SendWorkRequest.fetchAdd(8, 0x1234_5678, 0x48, -1));
        assertThat(peer.next()).isEqualTo(atomicRequest(1, 2, 1, 0x1234_5678, 0x40, 9, 0xF0, 5, 0xFF));
        // §5.2.1: a FetchAdd's Compare Data is sent as zero and its Compare Mask as all ones.
        assertThat(peer.next()).isEqualTo(atomicRequest(2, 0, 2, 0x1234_5678, 0x48, -1, 0, 0, -1L));
        assertThat(qp.readsOutstanding()).isEqualTo(2);
        peer.send(untagged(0xB, true, 0, 3, 1, 0) + "00000001" + "0000000000000005");
        peer.send(untagged(0xB, true, 0, 3, 2, 0) + "00000002" + "00000000000000ff");
        WorkCompletion cas = cq.take(Duration.ofSeconds(5));
        WorkCompletion add = cq.take(Duration.ofSeconds(5));
        assertThat(cas.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP);
        assertThat(cas.atomicOriginalValue()).isEqualTo(5);
        assertThat(add.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_FETCH_ADD);
        assertThat(add.atomicOriginalValue()).isEqualTo(0xFF);
        assertThat(qp.readsOutstanding()).isZero();
    }

    @Test
    void rfc7306Section5_2TheExampleOfDocsProtocolMdIsWhatGoesOnTheWire() throws Exception {
        // docs/protocol.md, "RFC 7306": a FetchAdd of 2 to STag 0x00000101, TO 8, as the first atomic of a stream.
        connect();
        peer.send(tagged(0, true, 1, 0)); // RFC 5044 §7.1.2: the responder waits for the initiator's first FPDU
        qp.postSend(SendWorkRequest.fetchAdd(1, 0x0000_0101, 8, 2));
        assertThat(peer.next()).isEqualTo(("41 4a 00000000 00000001 00000001 00000000"
                + " 00000000 00000001 00000101 0000000000000008 0000000000000002 0000000000000000 0000000000000000"
                + " ffffffffffffffff").replace(" ", ""));
        peer.send(("41 4b 00000000 00000003 00000001 00000000 00000001 0000000000000028").replace(" ", ""));
        WorkCompletion c = cq.take(Duration.ofSeconds(5));
        assertThat(c.isSuccess()).isTrue();
        assertThat(c.atomicOriginalValue()).isEqualTo(40);
    }

    @Test
    void rfc7306Section6_3ImmediateDataIsEightOctetsOnTheSendQueueAndConsumesAReceive() throws Exception {
        connect();
        MemoryRegion buffer = pd.allocate(16, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(buffer)));
        qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(buffer)));
        qp.postReceive(ReceiveWorkRequest.of(3, ScatterGatherEntry.of(buffer)));
        // A Send, then Immediate Data, then Immediate Data with SE: one MSN sequence on QN 0.
        peer.send(untagged(3, true, 0, 0, 1, 0) + "aabb");
        peer.send(untagged(8, true, 0, 0, 2, 0) + "0102030405060708");
        peer.send(untagged(9, true, 0, 0, 3, 0) + "fffffffffffffffe");
        WorkCompletion send = cq.take(Duration.ofSeconds(5));
        WorkCompletion imm = cq.take(Duration.ofSeconds(5));
        WorkCompletion immSe = cq.take(Duration.ofSeconds(5));
        assertThat(send.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
        assertThat(imm.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
        assertThat(imm.wrId()).isEqualTo(2);
        assertThat(imm.immediateData()).isEqualTo(0x0102030405060708L);
        assertThat(imm.byteLength()).as("nothing placed in the buffer").isZero();
        assertThat(imm.solicited()).isFalse();
        assertThat(immSe.immediateData()).isEqualTo(-2L);
        assertThat(immSe.solicited()).isTrue();
        // And this end sends them: a Write followed by Immediate Data, then Immediate Data with SE.
        MemoryRegion source = pd.allocate(4, Access.of(Access.LOCAL_WRITE));
        source.buffer().setInt(0, 0xCAFEBABE);
        qp.postSend(SendWorkRequest.writeWithImmediate(4, 0x77, 0x100, 0x55, ScatterGatherEntry.of(source)));
        qp.postSend(SendWorkRequest.immediateData(5, 0x66).withSolicitedEvent());
        assertThat(peer.next()).isEqualTo(tagged(0, true, 0x77, 0x100) + "cafebabe");
        assertThat(peer.next()).isEqualTo(untagged(8, true, 0, 0, 1, 0) + "0000000000000055");
        assertThat(peer.next()).isEqualTo(untagged(9, true, 0, 0, 2, 0) + "0000000000000066");
        assertThat(cq.take(Duration.ofSeconds(5)).opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE_WITH_IMMEDIATE);
        assertThat(cq.take(Duration.ofSeconds(5)).opcode()).isEqualTo(WorkCompletionOpcode.IMMEDIATE_DATA);
        buffer.close();
        source.close();
    }

    @Test
    void rfc7306Section4_1AndSection5_2_1FieldsSetToZeroOnTransmitAreIgnoredOnReceive() throws Exception {
        // §4.1: the Invalidate STag of the four new messages is "set to zero by the sender, ignored by the
        // receiver"; §5.2.1: the 28 Reserved bits before AOpCode are "set to zero on transmit, ignored on receive";
        // and a FetchAdd's Compare Data and Compare Mask are "ignored by the receiver".
        connect();
        MemoryRegion buffer = pd.allocate(16, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(buffer)));
        MemoryRegion r = word(40, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        peer.send(untagged(8, true, 0xDEAD_BEEF, 0, 1, 0) + "0102030405060708");
        WorkCompletion imm = cq.take(Duration.ofSeconds(5));
        assertThat(imm.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE_IMMEDIATE);
        assertThat(imm.invalidated()).isFalse();
        String request = atomicRequest(1, 0, 0x21, r.stag(), 8, 2, 0, 0x1234, 0x5678);
        // Invalidate STag = the region's own STag, which must not be invalidated; Reserved bits all ones.
        request = untagged(0xA, true, r.stag(), 1, 1, 0) + "fffffff0" + request.substring(44);
        peer.send(request);
        assertThat(peer.next()).isEqualTo(untagged(0xB, true, 0, 3, 1, 0) + "00000021" + "0000000000000028");
        assertThat(r.buffer().getLong(8)).isEqualTo(42);
        assertThat(r.isValid()).isTrue();
        assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        r.close();
        buffer.close();
    }

    // ---- negotiation ----

    @Test
    void aPeerThatDoesNotOfferTheExtensionsIsNeverSentThemAndTheirOpcodesAreReserved() throws Exception {
        connect(c -> c.withExtensions(RdmapExtensions.ALL), RdmapExtensions.NONE);
        assertThat(qp.extensions()).isEqualTo(RdmapExtensions.NONE);
        assertThat(accepted.peerPrivateData()).isEmpty();
        assertThat(peer.negotiation.peerPrivateData()).as("no block in the Reply").isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> qp.postSend(SendWorkRequest.fetchAdd(1, 1, 0, 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("did not agree to RFC 7306");
        String s = atomicRequest(1, 0, 1, 1, 0, 1, 0, 0, 0);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, s.substring(0, 36), 70, ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void aResponderAnswersOnlyWhatItSupports() throws Exception {
        connect(c -> c.withExtensions(new RdmapExtensions(false, true)), RdmapExtensions.ALL);
        assertThat(qp.extensions()).isEqualTo(new RdmapExtensions(false, true));
        assertThat(RdmapExtensions.find(peer.negotiation.peerPrivateData()))
                .isEqualTo(new RdmapExtensions(false, true));
        assertThat(peer.negotiation.peerPrivateData()).containsExactly(0x53, 0x52, 0x44, 0x58, 1, 2, 0, 0);
    }

    // ---- errors (Terminate Layer/EType/Code) ----

    @Test
    void atomicOnARegionWithoutRemoteAtomicSendsAccessRightsViolation() throws Exception {
        connect();
        MemoryRegion r = word(0, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        String s = atomicRequest(1, 0, 1, r.stag(), 8, 1, 0, 0, 0);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x02, s.substring(0, 36), 70, ""), "PROTECTION_ACCESS_RIGHTS");
        assertThat(r.buffer().getLong(8)).as("not applied").isZero();
        r.close();
    }

    @Test
    void atomicOnAnUnknownStagSendsInvalidStag() throws Exception {
        connect();
        String s = atomicRequest(1, 0, 1, 0x0BAD_0000, 8, 1, 0, 0, 0);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x00, s.substring(0, 36), 70, ""), "PROTECTION_INVALID_STAG");
    }

    @Test
    void atomicPastTheEndOfTheRegionSendsBaseOrBoundsViolation() throws Exception {
        connect();
        MemoryRegion r = word(0, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        String s = atomicRequest(1, 0, 1, r.stag(), 64, 1, 0, 0, 0);
        peer.send(s);
        expectTerminate(terminate(0, 1, 0x01, s.substring(0, 36), 70, ""), "PROTECTION_BASE_OR_BOUNDS");
        r.close();
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "AOpCode {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 2})
    void rfc7306Section8_2AnAtomicOnAnUnalignedWordSendsCatastrophicStreamErrorAndLeavesMemoryAlone(int op)
            throws Exception {
        // §5.1.1 (FetchAdd), §5.1.2 (CmpSwap): not performed, memory not modified, an error surfaced and a Terminate;
        // §8.2: RDMA Layer Remote Operation Error, "Catastrophic error, localized to RDMAP Stream"; §8.1 rule 2:
        // with the Terminated DDP Header, without an RDMA header.
        connect();
        MemoryRegion r = word(0, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        assertThat(r.buffer().nioBuffer(0, 64).alignmentOffset(0, 8)).as("pooled memory starts aligned").isZero();
        r.buffer().setLong(8, 0x0102_0304_0506_0708L);
        r.buffer().setLong(16, 0x1112_1314_1516_1718L);
        // CmpSwap whose compare would match the octets at TO 12, so only the alignment can stop it.
        String s = atomicRequest(1, op, 1, r.stag(), 12, -1L, -1L, 0x0506_0708_1112_1314L, -1L);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x07, s.substring(0, 36), 70, ""), "OPERATION_CATASTROPHIC_STREAM");
        assertThat(r.buffer().getLong(8)).as("memory not modified").isEqualTo(0x0102_0304_0506_0708L);
        assertThat(r.buffer().getLong(16)).as("memory not modified").isEqualTo(0x1112_1314_1516_1718L);
        r.close();
    }

    @Test
    void rfc7306Section8_2TheWordsAddressDecidesSoAnAlignedTaggedOffsetOverAnOddSliceIsRefused() throws Exception {
        // A region whose base TO is 3 over aligned memory: TO 8 is octet 5, an unaligned address (§5.2.1: the TO
        // "MUST represent a ULP Buffer address that is 64-bit aligned"); TO 3 is octet 0, an aligned one.
        connect();
        io.netty.buffer.ByteBuf memory = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
        memory.setZero(0, 64).writerIndex(64);
        assertThat(memory.nioBuffer(0, 64).alignmentOffset(0, 8)).isZero();
        MemoryRegion r = pd.register(memory, Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC), 3);
        memory.release();
        r.buffer().setLong(0, 40);
        peer.send(atomicRequest(1, 0, 7, r.stag(), 3, 2, 0, 0, -1L));
        assertThat(peer.next()).isEqualTo(untagged(0xB, true, 0, 3, 1, 0) + "00000007" + "0000000000000028");
        assertThat(r.buffer().getLong(0)).isEqualTo(42);
        String s = atomicRequest(2, 0, 8, r.stag(), 8, 1, 0, 0, -1L);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x07, s.substring(0, 36), 70, ""), "OPERATION_CATASTROPHIC_STREAM");
        assertThat(r.buffer().getLong(0)).as("memory not modified").isEqualTo(42);
        assertThat(r.buffer().getLong(8)).as("memory not modified").isZero();
        r.close();
    }

    @Test
    void reservedAtomicOperationSendsUnexpectedOpcode() throws Exception {
        connect();
        MemoryRegion r = word(0, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        String s = atomicRequest(1, 1, 1, r.stag(), 8, 1, 0, 0, 0);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, s.substring(0, 36), 70, ""), "OPERATION_UNEXPECTED_OPCODE");
        r.close();
    }

    @Test
    void rfc7306Section5_2_1AnAtomicRequestLongerThanFiftyTwoOctetsSendsMessageTooLong() throws Exception {
        connect();
        String s = atomicRequest(1, 0, 1, 1, 8, 1, 0, 0, 0) + "0000000000000000";
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x05, s.substring(0, 36), 78, ""), "UNTAGGED_MESSAGE_TOO_LONG");
    }

    @Test
    void atomicRequestOnQueue3SendsInvalidQn() throws Exception {
        connect();
        String s = untagged(0xA, true, 0, 3, 1, 0) + atomicRequest(1, 0, 1, 1, 8, 1, 0, 0, 0).substring(36);
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x01, s.substring(0, 36), 70, ""), "UNTAGGED_INVALID_QN");
    }

    @Test
    void atomicRequestBeyondIrdSendsCatastrophicStreamErrorAsForReads() throws Exception {
        // RFC 7306 §5.2: Atomic Requests share the Read Request queue, so IRD bounds them too (here IRD 0).
        connect(c -> c.withExtensions(RdmapExtensions.ALL).withReadDepths(4, 0), RdmapExtensions.ALL);
        MemoryRegion r = word(0, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        String s = atomicRequest(1, 0, 1, r.stag(), 8, 1, 0, 0, 0);
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x07, s.substring(0, 36), 70, ""), "OPERATION_CATASTROPHIC_STREAM");
        assertThat(r.buffer().getLong(8)).as("not applied").isZero();
        r.close();
    }

    @Test
    void atomicResponseWithNoAtomicOutstandingSendsUnexpectedOpcode() throws Exception {
        connect();
        String s = untagged(0xB, true, 0, 3, 1, 0) + "00000001" + "0000000000000005";
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, s.substring(0, 36), 30, ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void immediateDataWithoutAPostedReceiveSendsNoBufferAvailable() throws Exception {
        connect();
        String s = untagged(8, true, 0, 0, 1, 0) + "0102030405060708";
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x02, s.substring(0, 36), 26, ""), "UNTAGGED_NO_BUFFER");
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {
            "Immediate Data of 7 octets", "Immediate Data with SE of 0 octets",
            "Atomic Request of 51 octets", "Atomic Response of 11 octets"})
    void rfc7306Section6_3AndSection5_2AMessageShorterThanItsFixedHeaderSendsTheFramingError(String what)
            throws Exception {
        // §6.3: "exactly 8 bytes", checked on receipt; §5.2.1, §5.2.2: the 52- and 12-octet headers. Shorter, the
        // FPDU's ULPDU_Length cannot be right: RFC 5044 §8 code 3, without headers, as Linux siw answers any opcode
        // whose fixed header does not fit.
        connect();
        MemoryRegion buffer = pd.allocate(16, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(buffer)));
        String s = switch (what) {
            case "Immediate Data of 7 octets" -> untagged(8, true, 0, 0, 1, 0) + "01020304050607";
            case "Immediate Data with SE of 0 octets" -> untagged(9, true, 0, 0, 1, 0);
            case "Atomic Request of 51 octets" -> atomicRequest(1, 0, 1, 1, 8, 1, 0, 0, -1L).substring(0, 2 * 69);
            default -> untagged(0xB, true, 0, 3, 1, 0) + "00000001" + "00000000000005";
        };
        peer.send(s);
        expectTerminate(terminate(2, 0, 0x03, "", 0, ""), "MARKER_AND_ULPDU_LENGTH_MISMATCH");
        assertThat(cq.poll()).as("the receive is flushed, not completed with data").satisfiesAnyOf(
                c -> assertThat(c).isNull(), c -> assertThat(c.status()).isNotEqualTo(WorkCompletionStatus.SUCCESS));
        buffer.close();
    }

    @Test
    void rfc7306Section6_3ImmediateDataLongerThanEightOctetsSendsMessageTooLong() throws Exception {
        connect();
        MemoryRegion buffer = pd.allocate(16, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(buffer)));
        String s = untagged(8, true, 0, 0, 1, 0) + "010203040506070809";
        peer.send(s);
        expectTerminate(terminate(1, 2, 0x05, s.substring(0, 36), 27, ""), "UNTAGGED_MESSAGE_TOO_LONG");
        buffer.close();
    }

    @Test
    void aTerminateForAnAtomicFailsThatAtomicWithARemoteAccessError() throws Exception {
        connect();
        peer.send(tagged(0, true, 1, 0));
        qp.postSend(SendWorkRequest.fetchAdd(9, 0x4444, 0, 1));
        String request = peer.next();
        // The peer answers as this stack would: Remote Protection Error, invalid STag, with the DDP header.
        peer.send(terminate(0, 1, 0x00, request.substring(0, 36), 70, ""));
        WorkCompletion c = cq.take(Duration.ofSeconds(5));
        assertThat(c.wrId()).isEqualTo(9);
        assertThat(c.status()).isEqualTo(WorkCompletionStatus.REMOTE_ACCESS_ERROR);
        assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.ATOMIC_FETCH_ADD);
    }

    @Test
    void atomicOnARegionOfAnotherProtectionDomainSendsStagNotAssociated() throws Exception {
        connect();
        ProtectionDomain other = device.allocateProtectionDomain();
        try {
            MemoryRegion r = other.allocate(64, Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            String s = atomicRequest(1, 0, 1, r.stag(), 8, 1, 0, 0, 0);
            peer.send(s);
            expectTerminate(terminate(0, 1, 0x03, s.substring(0, 36), 70, ""), "PROTECTION_STAG_NOT_ASSOCIATED");
        } finally {
            other.close();
        }
    }

    @Test
    void atomicRequestSplitInsideItsHeaderSendsTheFramingError() throws Exception {
        // A segment that cannot hold the 52-octet header (§5.2.1): its ULPDU_Length is wrong, as for a short one.
        connect();
        String whole = atomicRequest(1, 0, 1, 1, 8, 1, 0, 0, 0);
        String first = untagged(0xA, false, 0, 1, 1, 0) + whole.substring(36, 36 + 2 * 26);
        peer.send(first);
        expectTerminate(terminate(2, 0, 0x03, "", 0, ""), "MARKER_AND_ULPDU_LENGTH_MISMATCH");
    }

    @Test
    void atomicRequestWholeButNotTheLastSegmentSendsMessageTooLong() throws Exception {
        // The whole header with L = 0: more would follow, but an Atomic Request is one segment of 52 octets.
        connect();
        String whole = atomicRequest(1, 0, 1, 1, 8, 1, 0, 0, 0);
        String first = untagged(0xA, false, 0, 1, 1, 0) + whole.substring(36);
        peer.send(first);
        expectTerminate(terminate(1, 2, 0x05, first.substring(0, 36), 70, ""), "UNTAGGED_MESSAGE_TOO_LONG");
    }

    @Test
    void atomicResponseWithAnotherRequestIdentifierSendsUnexpectedOpcode() throws Exception {
        connect();
        peer.send(tagged(0, true, 1, 0));
        qp.postSend(SendWorkRequest.fetchAdd(9, 0x4444, 0, 1));
        assertThat(peer.next()).startsWith(untagged(0xA, true, 0, 1, 1, 0));
        String s = untagged(0xB, true, 0, 3, 1, 0) + "00000002" + "0000000000000005";
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, s.substring(0, 36), 30, ""), "OPERATION_UNEXPECTED_OPCODE");
    }

    @Test
    void immediateDataInsideAnUnfinishedSendSendsUnexpectedOpcode() throws Exception {
        connect();
        MemoryRegion buffer = pd.allocate(64, Access.of(Access.LOCAL_WRITE));
        qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(buffer)));
        qp.postReceive(ReceiveWorkRequest.of(2, ScatterGatherEntry.of(buffer)));
        peer.send(untagged(3, false, 0, 0, 1, 0) + "aabbccdd");
        String s = untagged(8, true, 0, 0, 1, 4) + "0102030405060708";
        peer.send(s);
        expectTerminate(terminate(0, 2, 0x06, s.substring(0, 36), 26, ""), "OPERATION_UNEXPECTED_OPCODE");
        buffer.close();
    }

    @Test
    void aRegionAPeerMayApplyAtomicsToStartsZeroedAsAtomicsReadTheWordBefore() throws Exception {
        connect();
        // Leave something in pooled memory, then take the same size back for atomics.
        for (int i = 0; i < 4; i++) {
            MemoryRegion dirty = pd.allocate(256, Access.of(Access.LOCAL_WRITE));
            for (int at = 0; at < 256; at += 8) {
                dirty.buffer().setLong(at, 0x5EC2E7_5EC2E7L);
            }
            dirty.close();
        }
        MemoryRegion r = pd.allocate(256, Access.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
        for (int at = 0; at < 256; at += 8) {
            peer.send(atomicRequest(1 + at / 8, 0, at, r.stag(), at, 0, 0, 0, 0));
            assertThat(peer.next()).as("word at %d", at).endsWith("0000000000000000");
        }
        r.close();
    }

    @Test
    void aRegionClosedWhileItsAtomicWaitsBehindReadResponsesEndsTheStreamWithInvalidStagNamingTheRequest()
            throws Exception {
        // RFC 7306 §7 has the atomic wait for the Read Responses before it; meanwhile its region goes. It is then
        // never touched, and the Terminate (RFC 5040 §7.2 invalid STag) carries the Atomic Request's DDP header, by
        // whose MSN a SoftRDMA requester finds the failed atomic (§8.1 rule 2).
        connect(c -> c.withExtensions(RdmapExtensions.ALL).withReadDepths(4, 64), RdmapExtensions.ALL);
        int size = 1 << 20;
        MemoryRegion source = pd.allocate(size, Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        MemoryRegion word = word(40, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        peer.pauseReading();
        int reads = 16;
        for (int i = 0; i < reads; i++) {
            peer.send(RawPeer.readRequest(1 + i, 0x99, (long) i * size, size, source.stag(), 0));
        }
        io.netty.channel.Channel ch = accepted.channel();
        await("Read Responses backed up in the channel").atMost(Duration.ofSeconds(10))
                .until(() -> ch.eventLoop().submit(() -> !ch.isWritable()).get());
        String atomic = atomicRequest(reads + 1, 0, 0x31, word.stag(), 8, 1, 0, 0, -1L);
        peer.send(atomic);
        await("the Atomic Request received").atMost(Duration.ofSeconds(10)).until(() -> ch.eventLoop()
                .submit(() -> qp.counters().messages(RdmapOpcode.ATOMIC_REQUEST, true)).get() == 1);
        word.close();
        peer.resumeReading();
        long octets = 0;
        byte[] u;
        while (((u = peer.nextUlpdu(10))[0] & 0x80) != 0) {
            octets += u.length - 14;
        }
        assertThat(octets).as("every Read Response before it").isEqualTo((long) reads * size);
        assertThat(io.softrdma.testing.Hex.hex(u)).isEqualTo(terminate(0, 1, 0x00, atomic.substring(0, 36), 70, ""));
        source.close();
    }

    @Test
    void rfc5044Section6ReadResponsesQueuedBehindAFullSocketKeepValidCrcsWhileWritesChangeTheirMemory()
            throws Exception {
        connect(c -> c.withExtensions(RdmapExtensions.ALL).withReadDepths(4, 128), RdmapExtensions.ALL);
        int size = 1 << 20;
        MemoryRegion r = pd.allocate(size, Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        // The peer stops reading: the Read Responses back up in the socket and in the channel's outbound buffer,
        // already framed, CRC and all. The peer's Writes then change every page of the memory they carry. Fuzzing
        // found that the octets TCP finally took were the changed ones, under the old CRC (then with atomics, which
        // were carried out on arrival; RFC 7306 §7 now has them wait for the Read Responses before them): the peer
        // would have seen a CRC error. A Read Response's payload is copied when CRC is on, so what is sent is what
        // was summed.
        peer.pauseReading();
        int reads = 16;
        int writes = 96;
        for (int i = 0; i < reads; i++) {
            peer.send(RawPeer.readRequest(1 + i, 0x99, (long) i * size, size, r.stag(), 0));
        }
        // The Read Responses have backed up into the channel's outbound buffer, framed: it takes no more.
        io.netty.channel.Channel ch = accepted.channel();
        await("Read Responses backed up in the channel").atMost(Duration.ofSeconds(10))
                .until(() -> ch.eventLoop().submit(() -> !ch.isWritable()).get());
        for (int i = 0; i < writes; i++) {
            long to = (long) i * ((size / writes) & ~7);
            peer.send(tagged(0, true, r.stag(), to) + "0101010101010101");
        }
        // Every Write has changed the memory (placed as it arrives), while the framed Read Responses still wait.
        await("the Writes placed").atMost(Duration.ofSeconds(10)).until(() -> ch.eventLoop()
                .submit(() -> qp.counters().messages(RdmapOpcode.RDMA_WRITE, true)).get() == writes);
        assertThat(ch.eventLoop().submit(ch::isWritable).get()).as("the channel takes writes again").isFalse();
        peer.resumeReading();
        long octets = 0;
        while (octets < (long) reads * size) {
            byte[] u = peer.nextUlpdu(10); // the peer's FPDU decoder checks every CRC: a bad one ends the stream
            assertThat(u[1] & 0x0F).as("the opcode of a Read Response (RFC 5040 §4.2)").isEqualTo(0x2);
            octets += u.length - 14;
        }
        assertThat(octets).isEqualTo((long) reads * size);
        assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        r.close();
    }
}
