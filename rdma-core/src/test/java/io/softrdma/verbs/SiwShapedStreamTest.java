package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.testing.Hex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream shaped as Linux siw sends it, at rate, with MPA CRC on: RDMA Writes of 65535 octets cut into DDP segments
 * of 1436 octets of payload (an FPDU of 1456 octets per 1460-octet TCP segment, as siw sizes them from the MSS), the
 * Writes' FPDUs flushed in groups of random sizes so that the queue pair's reads end anywhere in an FPDU: across
 * two reads, inside the CRC, on the length field. Every FPDU's CRC32c is checked on receipt (RFC 5044 §4.4), so a
 * read buffer reused or misread while an FPDU still spans it ends the stream with a CRC error (RFC 5044 §8).
 *
 * <p>Why: twice in CI, the interop case with siw's 64 KiB Writes (docs/interop.md, finding 6) ended on a CRC error
 * in such an FPDU, and whether siw sent it wrong or SoftRDMA misread it was not known. This test holds SoftRDMA's
 * receive path to the same shape of stream, some 92,000 FPDUs (131 MB), and checks the last Write's octets placed.
 */
class SiwShapedStreamTest {
    private static final int WRITE = 65535;
    /** siw's DDP payload per FPDU on a 1460-octet MSS: 1460 - 2 (length) - 14 (tagged header) - 4 (CRC) - 4 (pad). */
    private static final int SEGMENT = 1436;
    private static final int WRITES = 2000;

    private final AcceptedRawPeer fixture = new AcceptedRawPeer();

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    @Test
    void rfc5044Section4_4EveryCrcHoldsOverWritesInSiwsSegmentsReadAcrossAnyBoundary() throws Exception {
        RawPeer peer = fixture.connect(c -> c, MpaSettings.defaults(), new byte[0]);
        assertThat(peer.negotiation.crc()).as("MPA CRC on, as in the interop case").isTrue();
        QueuePair qp = fixture.qp;
        ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(WRITE, WRITE).writeZero(WRITE);
        MemoryRegion sink = fixture.pd.register(memory, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        memory.release(); // the region's reference keeps it until the domain closes
        ByteBuf receive = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64).writeZero(64);
        qp.postReceive(ReceiveWorkRequest.of(7, ScatterGatherEntry.of(fixture.pd.register(receive,
                Access.of(Access.LOCAL_WRITE)))));
        receive.release();

        Random random = new Random(20261127);
        byte[] content = new byte[WRITE];
        List<byte[]> group = new ArrayList<>();
        try {
            for (int w = 0; w < WRITES; w++) {
                random.nextBytes(content);
                for (int offset = 0; offset < WRITE; offset += SEGMENT) {
                    int n = Math.min(SEGMENT, WRITE - offset);
                    byte[] header = Hex.bytes(RawPeer.tagged(0, offset + n == WRITE, sink.stag(), offset));
                    byte[] ulpdu = new byte[header.length + n];
                    System.arraycopy(header, 0, ulpdu, 0, header.length);
                    System.arraycopy(content, offset, ulpdu, header.length, n);
                    group.add(ulpdu);
                    if (random.nextInt(8) == 0) { // groups of 8 FPDUs on average, a write of about 11.6 KB
                        peer.sendAll(group.toArray(byte[][]::new));
                        group.clear();
                    }
                }
            }
            peer.sendAll(group.toArray(byte[][]::new));
            // A Send after the Writes: its completion says every Write before it was placed (RFC 5040 §5.5).
            peer.send(RawPeer.untagged(3, true, 0, 0, 1, 0) + "00112233");
        } catch (Exception e) { // Netty rethrows a closed channel's IOException unchecked
            // The queue pair under test closed the stream: say why (its Terminate) rather than how the send broke.
            byte[] terminate = peer.received.poll();
            throw new AssertionError("the stream ended while the raw peer sent; queue pair " + qp.state()
                    + ", its Terminate " + (terminate == null ? "none" : Hex.hex(terminate)), e);
        }
        WorkCompletion done = fixture.cq.take(Duration.ofSeconds(60));
        assertThat(done).as("the Send's completion after %d Writes (queue pair %s)", WRITES, qp.state()).isNotNull();
        assertThat(done.status()).as("the Send after %d Writes: %s", WRITES, qp.state())
                .isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(qp.state()).as("no CRC error ended the stream").isEqualTo(QueuePairState.RTS);
        assertThat(peer.received).as("no Terminate came back").isEmpty();
        ByteBuf placed = sink.buffer();
        assertThat(ByteBufUtil.getBytes(placed, 0, WRITE)).as("the last Write's octets").isEqualTo(content);
    }
}
