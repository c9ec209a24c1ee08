package io.softrdma.reactive.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.RdmaException;
import io.softrdma.reactive.internal.protocol.MessageHeader.ProtocolException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class MessageHeaderTest {

    /** Runs {@code body} with a zeroed heap buffer of {@code capacity} octets, released afterwards. */
    private static void withBuffer(int capacity, Consumer<ByteBuf> body) {
        ByteBuf buf = Unpooled.buffer(capacity, capacity);
        buf.writeZero(capacity);
        try {
            body.accept(buf);
        } finally {
            buf.release();
        }
    }

    private static void bytes(ByteBuf buf, int index, String hex) {
        buf.setBytes(index, ByteBufUtil.decodeHexDump(hex));
    }

    private static int payloadFor(MessageType type) {
        return switch (type) {
            case CREDIT, READ_DONE -> 0;
            case LARGE -> LargeMessageDescriptor.LENGTH;
            case BATCH -> MessageBatch.ENTRY_HEADER; // one empty message
            default -> 5;
        };
    }

    @Test
    void theCodesAreTheWireValues() {
        assertThat(MessageType.values()).extracting(MessageType::code).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(MessageType.values()).extracting(MessageType::name)
                .containsExactly("DATA", "REQUEST", "RESPONSE", "CREDIT", "LARGE", "READ_DONE", "ERROR", "BATCH");
        for (MessageType t : MessageType.values()) {
            assertThat(MessageType.fromCode(t.code())).isSameAs(t);
        }
        for (int code : new int[] {-1, 0, 9, 10, 127, 255, 256}) {
            assertThat(MessageType.fromCode(code)).as("code %d", code).isNull();
        }
    }

    @Test
    void onlyCreditAndReadDoneAreControlAndOnlyDataRequestResponseCanBeLarge() {
        for (MessageType t : MessageType.values()) {
            assertThat(t.isControl()).as("%s control", t)
                    .isEqualTo(t == MessageType.CREDIT || t == MessageType.READ_DONE);
            assertThat(t.canBeLarge()).as("%s large", t).isEqualTo(
                    t == MessageType.DATA || t == MessageType.REQUEST || t == MessageType.RESPONSE);
        }
    }

    @Test
    void theLayoutIsBigEndianTypeFlagsCreditsCorrelationId() {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.REQUEST, 0, 0x1234, 0xDEADBEEF);
            assertThat(ByteBufUtil.hexDump(buf)).isEqualTo("02" + "00" + "1234" + "deadbeef");
        });
        withBuffer(8, buf -> {
            MessageHeader.writeLarge(buf, 0, MessageType.RESPONSE, 0xFFFF, 7);
            assertThat(ByteBufUtil.hexDump(buf)).isEqualTo("05" + "03" + "ffff" + "00000007");
        });
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.READ_DONE, 0, 1, 0x8000_0001);
            assertThat(ByteBufUtil.hexDump(buf)).isEqualTo("06" + "00" + "0001" + "80000001");
        });
    }

    @ParameterizedTest
    @EnumSource(MessageType.class)
    void everyTypeRoundTripsAtAnAbsoluteIndexWithoutMovingTheBuffersIndices(MessageType type) {
        int index = 13;
        int correlation = switch (type) {
            case DATA, CREDIT -> 0;
            case BATCH -> 1; // its count
            default -> 0xCAFE_F00D;
        };
        int flags = type == MessageType.LARGE ? MessageHeader.largeFlags(MessageType.REQUEST) : 0;
        withBuffer(64, buf -> {
            buf.readerIndex(3).writerIndex(40);
            MessageHeader.write(buf, index, type, flags, 0xFFFE, correlation);
            assertThat(buf.readerIndex()).isEqualTo(3);
            assertThat(buf.writerIndex()).isEqualTo(40);
            assertThat(buf.getByte(index - 1)).as("octet before the header").isZero();
            assertThat(buf.getByte(index + MessageHeader.LENGTH)).as("octet after the header").isZero();

            assertThat(MessageHeader.typeCode(buf, index)).isEqualTo(type.code());
            assertThat(MessageHeader.type(buf, index)).isSameAs(type);
            assertThat(MessageHeader.flags(buf, index)).isEqualTo(flags);
            assertThat(MessageHeader.credits(buf, index)).isEqualTo(0xFFFE);
            assertThat(MessageHeader.correlationId(buf, index)).isEqualTo(correlation);
            assertThat(MessageHeader.validate(buf, index, MessageHeader.LENGTH + payloadFor(type))).isSameAs(type);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 255, 256, 0x7FFF, 0x8000, 0xFFFF})
    void creditsAreUnsigned16Bit(int credits) {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.CREDIT, 0, credits, 0);
            assertThat(MessageHeader.credits(buf, 0)).isEqualTo(credits);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x0102_0304})
    void everyCorrelationIdRoundTrips(int id) {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.RESPONSE, 0, 0, id);
            assertThat(MessageHeader.correlationId(buf, 0)).isEqualTo(id);
            assertThat(MessageHeader.validate(buf, 0, 8)).isEqualTo(MessageType.RESPONSE);
        });
    }

    @ParameterizedTest
    @EnumSource(value = MessageType.class, names = {"DATA", "REQUEST", "RESPONSE"})
    void aLargeHeaderCarriesItsInnerTypeInTheLowTwoFlagBits(MessageType inner) {
        withBuffer(24, buf -> {
            int correlation = inner == MessageType.DATA ? 0 : 99;
            MessageHeader.writeLarge(buf, 0, inner, 3, correlation);
            assertThat(MessageHeader.flags(buf, 0)).isEqualTo(inner.code());
            assertThat(MessageHeader.type(buf, 0)).isEqualTo(MessageType.LARGE);
            assertThat(MessageHeader.innerType(buf, 0)).isEqualTo(inner);
            assertThat(MessageHeader.validate(buf, 0, 24)).isEqualTo(MessageType.LARGE);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 9, 10, 100, 255})
    void anUnknownTypeIsAProtocolErrorNamingIt(int code) {
        withBuffer(8, buf -> {
            bytes(buf, 0, String.format("%02x", code) + "00" + "0001" + "00000000");
            assertThatThrownBy(() -> MessageHeader.type(buf, 0)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("unknown message type " + code)
                    .hasMessageContaining(String.format("%02x00000100000000", code));
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 8)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("unknown message type " + code);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4, 7})
    void aSendShorterThanTheHeaderIsAProtocolError(int length) {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.DATA, 0, 1, 0);
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, length)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a Send of " + length + " octets is too short for the 8-octet message"
                            + " header");
        });
    }

    @Test
    void aCreditWithAPayloadIsAProtocolError() {
        withBuffer(16, buf -> {
            MessageHeader.write(buf, 0, MessageType.CREDIT, 0, 1, 0);
            assertThat(MessageHeader.validate(buf, 0, 8)).isEqualTo(MessageType.CREDIT);
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 9)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a CREDIT message has no payload, but this one has 1 octets");
        });
    }

    /** docs/protocol.md, "Large messages", step 4: one READ_DONE releases its STag and those its payload lists. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 7, 4093})
    void aReadDonesPayloadIsWholeStags(int payload) {
        withBuffer(8 + 4096, buf -> {
            MessageHeader.write(buf, 0, MessageType.READ_DONE, 0, 1, 0x00AB_CD01);
            assertThat(MessageHeader.validate(buf, 0, 8 + payload - payload % 4)).isEqualTo(MessageType.READ_DONE);
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 8 + payload)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a READ_DONE's payload is the further STags it releases, 4 octets each, not "
                            + payload + " octets");
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 23, 25, 4096})
    void aLargeMessageMustCarryExactlyADescriptor(int length) {
        withBuffer(4096, buf -> {
            MessageHeader.writeLarge(buf, 0, MessageType.DATA, 0, 0);
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, length)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a LARGE message's payload is a 16-octet descriptor, not "
                            + (length - 8) + " octets");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"00", "04", "07", "81", "41", "ff"})
    void aLargeMessageWithoutAValidInnerTypeIsAProtocolError(String flags) {
        withBuffer(24, buf -> {
            bytes(buf, 0, "05" + flags + "0000" + "00000000");
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 24)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a LARGE message's flags must be 0x01 (DATA), 0x02 (REQUEST) or 0x03"
                            + " (RESPONSE), not 0x" + flags);
            assertThatThrownBy(() -> MessageHeader.innerType(buf, 0)).isInstanceOf(ProtocolException.class);
        });
    }

    @ParameterizedTest
    @EnumSource(value = MessageType.class, names = "LARGE", mode = EnumSource.Mode.EXCLUDE)
    void reservedFlagsAreAProtocolError(MessageType type) {
        withBuffer(24, buf -> {
            bytes(buf, 0, String.format("%02x", type.code()) + "80" + "0000" + "00000000");
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 8 + payloadFor(type)))
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a " + type + " message's flags must be zero, not 0x80");
        });
    }

    @Test
    void dataCreditAndLargeDataCarryNoCorrelationId() {
        withBuffer(24, buf -> {
            bytes(buf, 0, "01" + "00" + "0000" + "00000001");
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 8)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a DATA message's correlation id must be zero, not 0x00000001");
            bytes(buf, 0, "04" + "00" + "0000" + "80000000");
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 8)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a CREDIT message's correlation id must be zero");
            bytes(buf, 0, "05" + "01" + "0000" + "00000002");
            assertThatThrownBy(() -> MessageHeader.validate(buf, 0, 24)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("a LARGE DATA message's correlation id must be zero");
            bytes(buf, 0, "05" + "02" + "0000" + "00000002");
            assertThat(MessageHeader.validate(buf, 0, 24)).isEqualTo(MessageType.LARGE);
        });
    }

    @Test
    void aReadDoneCarriesTheStagInTheCorrelationField() {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.READ_DONE, 0, 0, 0x00AB_CD01);
            assertThat(MessageHeader.validate(buf, 0, 8)).isEqualTo(MessageType.READ_DONE);
            assertThat(MessageHeader.correlationId(buf, 0)).isEqualTo(0x00AB_CD01);
        });
    }

    @Test
    void theWriterRefusesFieldsItsTypeDoesNotAllow() {
        withBuffer(8, buf -> {
            assertThatThrownBy(() -> MessageHeader.write(buf, 0, MessageType.DATA, 0, -1, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credits -1");
            assertThatThrownBy(() -> MessageHeader.write(buf, 0, MessageType.DATA, 0, 0x10000, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credits 65536");
            assertThatThrownBy(() -> MessageHeader.write(buf, 0, MessageType.DATA, 1, 0, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("flags must be zero");
            assertThatThrownBy(() -> MessageHeader.write(buf, 0, MessageType.LARGE, 0, 0, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LARGE message's flags");
            assertThatThrownBy(() -> MessageHeader.write(buf, 0, MessageType.DATA, 0, 0, 5))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("correlation id must be zero");
            assertThatThrownBy(() -> MessageHeader.write(buf, 0, null, 0, 0, 0))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> MessageHeader.writeLarge(buf, 0, MessageType.ERROR, 0, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a LARGE message stands for DATA, REQUEST or RESPONSE, not ERROR");
            assertThatThrownBy(() -> MessageHeader.largeFlags(MessageType.LARGE))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(ByteBufUtil.hexDump(buf)).as("nothing written by a refused call").isEqualTo("0000000000000000");
        });
    }

    @Test
    void writingPastTheBufferFailsWithoutTouchingIt() {
        withBuffer(8, buf -> {
            assertThatThrownBy(() -> MessageHeader.write(buf, 1, MessageType.CREDIT, 0, 1, 0))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> MessageHeader.write(buf, -1, MessageType.CREDIT, 0, 1, 0))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(ByteBufUtil.hexDump(buf)).isEqualTo("0000000000000000");
        });
    }

    @Test
    void innerTypeOfANonLargeHeaderIsAProtocolError() {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.DATA, 0, 0, 0);
            assertThatThrownBy(() -> MessageHeader.innerType(buf, 0)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("only a LARGE message has an inner type");
        });
    }

    @Test
    void describeNamesEveryField() {
        withBuffer(8, buf -> {
            MessageHeader.write(buf, 0, MessageType.REQUEST, 0, 3, 42);
            assertThat(MessageHeader.describe(buf, 0))
                    .isEqualTo("header{type=REQUEST flags=0x00 credits=3 correlationId=0x0000002a}");
            bytes(buf, 0, "09");
            assertThat(MessageHeader.describe(buf, 0)).startsWith("header{type=unknown(9) ");
        });
    }

    @Test
    void aProtocolErrorIsAStacklessRdmaException() {
        ProtocolException e = new ProtocolException("x");
        assertThat(e).isInstanceOf(RdmaException.class).hasMessage("SoftRDMA messaging protocol error: x");
        assertThat(e.getStackTrace()).isEmpty();
    }
}
