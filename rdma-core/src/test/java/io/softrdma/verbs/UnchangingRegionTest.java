package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.internal.mpa.FpduException;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.mpa.MpaSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
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

    private final ConnectionManager cm = ConnectionManager.create(2);
    private final RdmaDevice device = RdmaDevice.create();
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(1024);
    private QueuePair qp;
    private RdmaListener listener;
    private RawPeer peer;
    private RdmaConnection accepted;

    private void connect() throws Exception {
        qp = pd.createQueuePair(QueuePairConfig.of(cq).withReadDepths(4, 128));
        CompletableFuture<RdmaConnection> done = new CompletableFuture<>();
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
                request -> request.accept(qp, new byte[0]).whenComplete((c, e) -> done.complete(c)));
        peer = RawPeer.connect(cm.eventLoopGroup(), listener.port(), MpaSettings.defaults());
        accepted = done.get(5, TimeUnit.SECONDS);
        assertThat(peer.negotiation.crc()).as("MPA CRC on, the case the copy exists for").isTrue();
    }

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
        if (qp != null) {
            qp.close();
            qp.closeFuture().handle((v, e) -> null).join();
        }
        if (listener != null) {
            listener.close();
        }
        cm.close();
        pd.close();
    }

    private static ByteBuf pattern(int length, int seed) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
        for (int i = 0; i < length; i++) {
            b.writeByte(i * 31 + seed);
        }
        return b;
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
    void rfc5044Section8_1AnUnchangingRegionIsSentFromItsOwnMemorySoAChangeBreaksThePeersCrc() throws Exception {
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
        await().atMost(Duration.ofSeconds(10)).until(() -> !accepted.channel().isWritable());
        accepted.channel().eventLoop().submit(() -> memory.setZero(0, MIB)).get(5, TimeUnit.SECONDS);
        peer.resumeReading();
        await().atMost(Duration.ofSeconds(10)).until(() -> !peer.errors.isEmpty());
        assertThat(peer.errors.peek()).as("the peer's MPA found a CRC that does not cover the octets sent")
                .isInstanceOfSatisfying(FpduException.class, e -> assertThat(e.code())
                        .isEqualTo(LlpErrorCode.CRC_ERROR));
    }
}
