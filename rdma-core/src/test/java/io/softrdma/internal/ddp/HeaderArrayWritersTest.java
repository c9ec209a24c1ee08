package io.softrdma.internal.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The headers the sender writes into an array for its short segments are the ones it writes into buffers. */
class HeaderArrayWritersTest {

    @ParameterizedTest
    @CsvSource({"0, true, 0x12345678, 0x0102030405060708", "1, false, 0xffffffff, -1", "0, true, 0, 0"})
    void rfc5041Section4_3TaggedHeaderInAnArrayIsTheBuffersOctets(int opcode, boolean last, long stag, long to) {
        ByteBuf expected = Unpooled.buffer();
        TaggedHeaderCodec.write(expected, opcode, last, (int) stag, to);
        byte[] out = new byte[3 + TaggedHeaderCodec.LENGTH];
        assertThat(TaggedHeaderCodec.write(out, 3, opcode, last, (int) stag, to)).isEqualTo(TaggedHeaderCodec.LENGTH);
        assertThat(ByteBufUtil.hexDump(out, 3, TaggedHeaderCodec.LENGTH)).isEqualTo(ByteBufUtil.hexDump(expected));
        assertThat(out[0] | out[1] | out[2]).as("nothing written before the offset").isZero();
        expected.release();
    }

    @ParameterizedTest
    @CsvSource({"3, true, 0, 0, 1, 0", "7, false, 0xcafef00d, 0, 0xfffffffe, 0x10000", "1, true, 0, 1, 5, 0",
        "12, true, 0, 3, 9, 0"})
    void rfc5041Section4_4UntaggedHeaderInAnArrayIsTheBuffersOctets(int opcode, boolean last, long invalidateStag,
            int queue, long msn, int messageOffset) {
        ByteBuf expected = Unpooled.buffer();
        UntaggedHeaderCodec.write(expected, opcode, last, (int) invalidateStag, queue, (int) msn, messageOffset);
        byte[] out = new byte[UntaggedHeaderCodec.LENGTH];
        assertThat(UntaggedHeaderCodec.write(out, 0, opcode, last, (int) invalidateStag, queue, (int) msn,
                messageOffset)).isEqualTo(UntaggedHeaderCodec.LENGTH);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo(ByteBufUtil.hexDump(expected));
        expected.release();
    }
}
