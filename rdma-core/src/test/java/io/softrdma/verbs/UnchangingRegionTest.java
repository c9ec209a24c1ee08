package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.internal.mpa.FpduException;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.mpa.MpaSettings;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ProtectionDomain#registerUnchanging}: memory lent for the peer to RDMA Read on the promise that it does not
 * change while registered, whose Read Responses go from the memory itself with MPA CRC on (other regions' are copied
 * first, {@code Rfc7306TerminateTest.rfc5044Section6ReadResponsesQueuedBehindAFullSocketKeepValidCrcs...}). Against a
 * raw peer that checks every FPDU's CRC.
 */
class UnchangingRegionTest {
    private static final int MIB = 1 << 20;

    private final AcceptedRawPeer fixture = new AcceptedRawPeer();
    private final ProtectionDomain pd = fixture.pd;
    private QueuePair qp;
    private RawPeer peer;

    private void connect() throws Exception {
        peer = fixture.connect(c -> c.withReadDepths(4, 128), MpaSettings.defaults(), new byte[0]);
        qp = fixture.qp;
        assertThat(peer.negotiation.crc()).as("MPA CRC on, the case the copy exists for").isTrue();
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private static ByteBuf pattern(int length, int seed) {
        byte[] octets = new byte[length];
        for (int i = 0; i < length; i++) {
            octets[i] = (byte) (i * 31 + seed);
        }
        // One write: at PARANOID every access of a leak-tracked buffer is recorded, an octet at a time took seconds.
        return PooledByteBufAllocator.DEFAULT.directBuffer(length, length).writeBytes(octets);
    }

    @Test
    void anUnchangingRegionIsLentForReadingOnlyAndMustBeDirect() {
        ByteBuf memory = pattern(64, 1);
        try (MemoryRegion r = pd.registerUnchanging(memory)) {
            assertThat(r.access()).containsExactly(Access.REMOTE_READ);
            assertThat(memory.refCnt()).as("the region holds a reference of its own").isEqualTo(2);
        } finally {
            memory.release();
        }
        assertThat(memory.refCnt()).isZero();
        assertThatThrownBy(() -> pd.registerUnchanging(Unpooled.buffer(8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("register direct memory");
    }

    @Test
    void rfc5040Section4_5ReadResponsesFromAnUnchangingRegionCarryItsOctetsUnderValidCrcs() throws Exception {
        connect();
        int size = 3 * MIB + 123; // several FPDUs, the last one short
        ByteBuf memory = pattern(size, 7);
        MemoryRegion r = pd.registerUnchanging(memory);
        memory.release(); // the region's reference keeps it until the domain closes
        peer.send(RawPeer.readRequest(1, 0x99, 0, size, r.stag(), 0));
        byte[] got = new byte[size];
        int at = 0;
        while (at < size) {
            byte[] u = peer.nextUlpdu(10); // the peer's FPDU decoder checks every CRC: a bad one ends the stream
            assertThat(u[1] & 0x0F).as("an RDMA Read Response (RFC 5040 §4.3: opcode 0010b)").isEqualTo(2);
            System.arraycopy(u, 14, got, at, u.length - 14);
            at += u.length - 14;
        }
        byte[] expected = new byte[size];
        memory.getBytes(0, expected);
        assertThat(Arrays.equals(got, expected)).as("the region's octets, in order").isTrue();
        assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
    }

    @Test
    void rfc5044Sections4_4And8AnUnchangingRegionIsSentFromItsOwnMemorySoAChangeBreaksThePeersCrc() throws Exception {
        connect();
        ByteBuf memory = pattern(MIB, 3);
        MemoryRegion r = pd.registerUnchanging(memory);
        memory.release(); // the region's reference keeps it until the domain closes
        // The peer stops reading: Read Responses back up in TCP, then in the channel, framed and CRC'd, until the
        // channel is no longer writable. Then the promise is broken: every octet of the memory changes. A region
        // registered otherwise would have had its payloads copied when framed; this one's framed segments still
        // point at the memory, so the octets TCP takes now are not the ones their CRC covers.
        peer.pauseReading();
        int reads = 32; // 32 MiB: more than loopback TCP buffers on both sides
        for (int i = 0; i < reads; i++) {
            peer.send(RawPeer.readRequest(1 + i, 0x99, (long) i * MIB, MIB, r.stag(), 0));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !fixture.accepted.channel().isWritable());
        fixture.accepted.channel().eventLoop().submit(() -> memory.setZero(0, MIB)).get(5, TimeUnit.SECONDS);
        peer.resumeReading();
        await().atMost(Duration.ofSeconds(10)).until(() -> !peer.errors.isEmpty());
        assertThat(peer.errors.peek()).as("the peer's MPA found a CRC that does not cover the octets sent")
                .isInstanceOfSatisfying(FpduException.class, e -> assertThat(e.code())
                        .isEqualTo(LlpErrorCode.CRC_ERROR));
    }
}
