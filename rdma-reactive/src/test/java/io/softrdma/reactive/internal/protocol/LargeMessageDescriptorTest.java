package io.softrdma.reactive.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.reactive.internal.protocol.MessageHeader.ProtocolException;
import io.softrdma.verbs.RemoteMemory;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LargeMessageDescriptorTest {

    private static void withBuffer(int capacity, Consumer<ByteBuf> body) {
        ByteBuf buf = Unpooled.buffer(capacity, capacity);
        buf.writeZero(capacity);
        try {
            body.accept(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void theLayoutIsStagTaggedOffsetLengthBigEndian() {
        withBuffer(16, buf -> {
            new LargeMessageDescriptor(0x0102_0304, 0x1122_3344_5566_7788L, 0xA0B0_C0D0L).write(buf, 0);
            assertThat(ByteBufUtil.hexDump(buf)).isEqualTo("01020304" + "1122334455667788" + "a0b0c0d0");
        });
    }

    @Test
    void roundTripsAtAnAbsoluteIndexWithoutMovingTheBuffersIndices() {
        LargeMessageDescriptor d = new LargeMessageDescriptor(0xFFFF_FF01, 0x8000_0000_0000_0000L, 1 << 20);
        withBuffer(40, buf -> {
            buf.writerIndex(5);
            d.write(buf, 8);
            assertThat(buf.readerIndex()).isZero();
            assertThat(buf.writerIndex()).isEqualTo(5);
            assertThat(buf.getByte(7)).isZero();
            assertThat(buf.getByte(24)).isZero();
            LargeMessageDescriptor back = LargeMessageDescriptor.read(buf, 8);
            assertThat(back).isEqualTo(d);
            assertThat(back.stag()).isEqualTo(0xFFFF_FF01);
            assertThat(back.taggedOffset()).isEqualTo(0x8000_0000_0000_0000L);
            assertThat(back.length()).isEqualTo(1 << 20);
        });
    }

    @Test
    void theLengthIsUnsigned32Bit() {
        withBuffer(16, buf -> {
            new LargeMessageDescriptor(1, 0, LargeMessageDescriptor.MAX_LENGTH).write(buf, 0);
            assertThat(ByteBufUtil.hexDump(buf, 12, 4)).isEqualTo("ffffffff");
            assertThat(LargeMessageDescriptor.read(buf, 0).length()).isEqualTo(0xFFFF_FFFFL);
        });
    }

    @Test
    void aZeroLengthIsRefusedOnBothSides() {
        assertThatThrownBy(() -> new LargeMessageDescriptor(1, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length 0 is outside 1..4294967295");
        assertThatThrownBy(() -> new LargeMessageDescriptor(1, 0, LargeMessageDescriptor.MAX_LENGTH + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LargeMessageDescriptor(1, 0, -1)).isInstanceOf(IllegalArgumentException.class);
        withBuffer(16, buf -> {
            buf.setBytes(0, ByteBufUtil.decodeHexDump("0000abcd" + "0000000000001000" + "00000000"));
            assertThatThrownBy(() -> LargeMessageDescriptor.read(buf, 0)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("LARGE descriptor {STag=0x0000abcd TO=0x1000 length=0}")
                    .hasMessageContaining("length 0 is outside 1..4294967295");
        });
    }

    @Test
    void aRegionThatWrapsPast2To64IsRefused() {
        // Ends exactly at 2^64: the last octet is at 2^64 - 1, which is fine.
        LargeMessageDescriptor edge = new LargeMessageDescriptor(1, -16L, 16);
        assertThat(edge.taggedOffset()).isEqualTo(0xFFFF_FFFF_FFFF_FFF0L);
        assertThatThrownBy(() -> new LargeMessageDescriptor(1, -16L, 17)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wraps past 2^64");
        assertThatThrownBy(() -> new LargeMessageDescriptor(1, -1L, 2)).isInstanceOf(IllegalArgumentException.class);
        withBuffer(16, buf -> {
            buf.setBytes(0, ByteBufUtil.decodeHexDump("00000001" + "ffffffffffffffff" + "00000001"));
            assertThat(LargeMessageDescriptor.read(buf, 0).length()).isEqualTo(1);
            buf.setBytes(0, ByteBufUtil.decodeHexDump("00000001" + "ffffffffffffffff" + "00000002"));
            assertThatThrownBy(() -> LargeMessageDescriptor.read(buf, 0)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("tagged offset 18446744073709551615 + length 2 wraps past 2^64");
        });
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 4096, 1 << 20})
    void aReceiverRefusesMoreThanItsLargestMessageBeforeAllocating(long max) {
        withBuffer(16, buf -> {
            new LargeMessageDescriptor(7, 0, max).write(buf, 0);
            assertThat(LargeMessageDescriptor.read(buf, 0, max).length()).isEqualTo(max);
            new LargeMessageDescriptor(7, 0, max + 1).write(buf, 0);
            assertThatThrownBy(() -> LargeMessageDescriptor.read(buf, 0, max)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("length " + (max + 1) + " exceeds the " + max
                            + " octets this side accepts in one message");
        });
    }

    @Test
    void theLargestMessageMustBeAValidLength() {
        withBuffer(16, buf -> {
            new LargeMessageDescriptor(7, 0, 1).write(buf, 0);
            assertThatThrownBy(() -> LargeMessageDescriptor.read(buf, 0, 0)).isInstanceOf(
                    IllegalArgumentException.class);
            assertThatThrownBy(() -> LargeMessageDescriptor.read(buf, 0, LargeMessageDescriptor.MAX_LENGTH + 1))
                    .isInstanceOf(IllegalArgumentException.class);
        });
    }

    @Test
    void convertsToAndFromTheVerbsRemoteMemory() {
        RemoteMemory memory = new RemoteMemory(0x1234_5678, 0x10_0000L, 65536);
        LargeMessageDescriptor d = LargeMessageDescriptor.of(memory);
        assertThat(d).isEqualTo(new LargeMessageDescriptor(0x1234_5678, 0x10_0000L, 65536));
        assertThat(d.toRemoteMemory()).isEqualTo(memory);
        assertThatThrownBy(() -> LargeMessageDescriptor.of(new RemoteMemory(1, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWholeLargeSendValidatesHeaderThenDescriptor() {
        withBuffer(64, buf -> {
            int at = 4;
            MessageHeader.writeLarge(buf, at, MessageType.REQUEST, 5, 77);
            new LargeMessageDescriptor(0xABCD_0001, 0x2000, 100_000).write(buf, at + MessageHeader.LENGTH);
            int length = MessageHeader.LENGTH + LargeMessageDescriptor.LENGTH;
            assertThat(MessageHeader.validate(buf, at, length)).isEqualTo(MessageType.LARGE);
            assertThat(MessageHeader.innerType(buf, at)).isEqualTo(MessageType.REQUEST);
            assertThat(MessageHeader.correlationId(buf, at)).isEqualTo(77);
            assertThat(MessageHeader.credits(buf, at)).isEqualTo(5);
            assertThat(LargeMessageDescriptor.read(buf, at + MessageHeader.LENGTH, 1 << 20).toRemoteMemory())
                    .isEqualTo(new RemoteMemory(0xABCD_0001, 0x2000, 100_000));
        });
    }

    @Test
    void toStringShowsTheFieldsInHex() {
        assertThat(new LargeMessageDescriptor(0xAB, 0x10, 5)).hasToString(
                "LargeMessageDescriptor{STag=0x000000ab TO=0x10 length=5}");
    }
}
