package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The one remote-region codec, octet for octet in both layouts. */
class RemoteMemoryCodecTest {
    private static final RemoteMemory REGION = new RemoteMemory(0x11223344, 0x0102030405060708L, 0xF0E0D0C0L);

    @Test
    void softRdmaLayoutIsStagThenTaggedOffsetThenLength() {
        ByteBuf out = Unpooled.buffer();
        RemoteMemoryCodec.STAG_OFFSET_LENGTH.write(out, REGION);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("11223344" + "0102030405060708" + "f0e0d0c0");
        assertThat(RemoteMemoryCodec.STAG_OFFSET_LENGTH.read(out)).isEqualTo(REGION);
        assertThat(out.isReadable()).isFalse();
    }

    /** RFC 8166 §4.1.1: struct xdr_rdma_segment { uint32 handle; uint32 length; uint64 offset; }. */
    @Test
    void rfc8166Section4_1_1SegmentIsHandleThenLengthThenOffset() {
        ByteBuf out = Unpooled.buffer();
        RemoteMemoryCodec.RPC_RDMA_SEGMENT.write(out, REGION);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("11223344" + "f0e0d0c0" + "0102030405060708");
        assertThat(RemoteMemoryCodec.RPC_RDMA_SEGMENT.read(out)).isEqualTo(REGION);
    }

    @Test
    void absoluteAccessLeavesTheIndicesAlone() {
        ByteBuf buf = Unpooled.buffer(40).writeZero(40);
        RemoteMemoryCodec.RPC_RDMA_SEGMENT.set(buf, 8, REGION);
        assertThat(buf.readerIndex()).isZero();
        assertThat(buf.writerIndex()).isEqualTo(40);
        assertThat(RemoteMemoryCodec.RPC_RDMA_SEGMENT.get(buf, 8)).isEqualTo(REGION);
        assertThat(RemoteMemoryCodec.RPC_RDMA_SEGMENT.stag(buf, 8)).isEqualTo(0x11223344);
        assertThat(RemoteMemoryCodec.RPC_RDMA_SEGMENT.length(buf, 8)).isEqualTo(0xF0E0D0C0L);
        assertThat(RemoteMemoryCodec.RPC_RDMA_SEGMENT.taggedOffset(buf, 8)).isEqualTo(0x0102030405060708L);
    }

    @Test
    void aRegionLongerThanTheLengthFieldIsRefusedWithTheRule() {
        assertThatThrownBy(() -> RemoteMemoryCodec.STAG_OFFSET_LENGTH.write(Unpooled.buffer(),
                new RemoteMemory(1, 0, 1L << 32))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32-bit length");
    }

    @Test
    void aShortBufferSaysHowShort() {
        assertThatThrownBy(() -> RemoteMemoryCodec.STAG_OFFSET_LENGTH.read(Unpooled.buffer().writeZero(15)))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("15 are readable");
    }
}
