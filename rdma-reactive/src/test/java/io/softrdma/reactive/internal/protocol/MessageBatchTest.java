package io.softrdma.reactive.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.reactive.internal.protocol.MessageHeader.ProtocolException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The BATCH payload (docs/protocol.md, "Batches"): length-prefixed entries that fill the payload exactly. */
class MessageBatchTest {

    private static ByteBuf hex(String hex) {
        return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
    }

    @Test
    void theDocumentedExampleIsTwoMessagesBehindTheirLengths() {
        // docs/protocol.md: a BATCH granting 3 credits with "hi" and an empty message.
        ByteBuf send = Unpooled.buffer(64);
        try {
            ByteBuf hi = Unpooled.copiedBuffer("hi", StandardCharsets.US_ASCII);
            int at = MessageBatch.writeEntry(send, MessageHeader.LENGTH, hi);
            at = MessageBatch.writeEntry(send, at, Unpooled.EMPTY_BUFFER);
            hi.release();
            MessageHeader.write(send, 0, MessageType.BATCH, 0, 3, 2);
            send.writerIndex(at);
            assertThat(ByteBufUtil.hexDump(send)).isEqualTo("08000003" + "00000002" + "00000002" + "6869"
                    + "00000000");
            assertThat(hi.readerIndex()).as("the message's indices do not move").isZero();
            assertThat(MessageHeader.validate(send, 0, at)).isEqualTo(MessageType.BATCH);
            assertThat(MessageBatch.messageLength(send, 8)).isEqualTo(2);
            assertThat(MessageBatch.messageLength(send, 8 + MessageBatch.entryLength(2))).isZero();
        } finally {
            send.release();
        }
    }

    @Test
    void entriesMustFillThePayloadExactly() {
        ByteBuf p = hex("00000001 41 000000");
        try {
            assertThat(MessageBatch.error(p, 0, 8, 1)).contains("payload offset 5").contains("3 octets, too few");
            assertThat(MessageBatch.error(p, 0, 5, 1)).isNull();
        } finally {
            p.release();
        }
    }

    @Test
    void anEntryLongerThanWhatFollowsIsAnError() {
        ByteBuf p = hex("00000003 4142");
        try {
            assertThat(MessageBatch.error(p, 0, 6, 1)).isEqualTo(
                    "a BATCH entry at payload offset 0 says 3 octets, but only 2 follow");
        } finally {
            p.release();
        }
        ByteBuf huge = hex("ffffffff 00");
        try {
            assertThat(MessageBatch.error(huge, 0, 5, 1)).contains("says 4294967295 octets");
        } finally {
            huge.release();
        }
    }

    @Test
    void theCountMustMatchTheEntries() {
        ByteBuf p = hex("00000000 00000000");
        try {
            assertThat(MessageBatch.error(p, 0, 8, 2)).isNull();
            assertThat(MessageBatch.error(p, 0, 8, 3)).isEqualTo(
                    "a BATCH announces 3 messages, but its 8-octet payload holds 2");
            assertThat(MessageBatch.error(p, 0, 0, 1)).contains("announces 1 messages").contains("holds 0");
        } finally {
            p.release();
        }
    }

    @Test
    void theHeaderRejectsABatchWithoutMessagesOrWithABadPayload() {
        ByteBuf zero = hex("08000001 00000000");
        ByteBuf negative = hex("08000001 80000000 00000000");
        ByteBuf bad = hex("08000001 00000002 00000005 41");
        try {
            assertThatThrownBy(() -> MessageHeader.validate(zero, 0, 8)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("counts its messages, 1 or more, not 0x00000000");
            assertThatThrownBy(() -> MessageHeader.validate(negative, 0, 12)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("1 or more, not 0x80000000");
            assertThatThrownBy(() -> MessageHeader.validate(bad, 0, 13)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("says 5 octets, but only 1 follow")
                    .hasMessageContaining("in header 0800000100000002");
            assertThatThrownBy(() -> MessageHeader.write(zero, 0, MessageType.BATCH, 0, 0, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 or more");
        } finally {
            zero.release();
            negative.release();
            bad.release();
        }
    }
}
