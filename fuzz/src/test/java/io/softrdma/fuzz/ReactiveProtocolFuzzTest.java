package io.softrdma.fuzz;

import static io.softrdma.fuzz.FuzzSupport.expectOnly;
import static io.softrdma.fuzz.FuzzSupport.hex;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.fuzz.FuzzSupport.Input;
import io.softrdma.reactive.internal.protocol.LargeMessageDescriptor;
import io.softrdma.reactive.internal.protocol.MessageBatch;
import io.softrdma.reactive.internal.protocol.MessageHeader;
import io.softrdma.reactive.internal.protocol.MessageType;
import java.util.Arrays;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The SoftRDMA messaging protocol of rdma-reactive (docs/protocol.md), carried in RDMA Sends (RFC 5040
 * §5.3): the 8-octet {@code MessageHeader} that {@code validate} checks on every received Send, the
 * {@code LargeMessageDescriptor} of a LARGE message (an advertisement, RFC 5040 §2.3, with the RFC 5041 §7.2
 * TO-wrap rule), and the entries of a BATCH ({@code MessageBatch.error}). The only exception a received
 * Send may cause is {@code MessageHeader.ProtocolException}.
 */
@ExtendWith(ClassLeakCheck.class)
class ReactiveProtocolFuzzTest {

    /** What validating one Send gave: the type, or the protocol error's message. */
    static String validate(ByteBuf buf, int index, int length) {
        try {
            return "ok " + MessageHeader.validate(buf, index, length);
        } catch (RuntimeException e) {
            expectOnly(e, "from MessageHeader.validate", MessageHeader.ProtocolException.class);
            if (e.getMessage() == null || e.getMessage().isEmpty()) {
                throw new AssertionError("a ProtocolException without a message", e);
            }
            return "error " + e.getMessage();
        }
    }

    /**
     * A received Send, as the session handles it. Input: the options octet (bits 0-2 octets before the
     * Send in the receive buffer; bits 3-7 choose the largest LARGE message accepted), then the Send.
     */
    @FuzzTest(maxDuration = "30s")
    void receivedSend(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int options = in.u8();
        int lead = options & 7;
        long maxLength = switch (options >>> 3) {
            case 0 -> LargeMessageDescriptor.MAX_LENGTH;
            case 1 -> 1;
            default -> 1L << (options >>> 3);
        };
        byte[] send = in.rest();
        byte[] exactOctets = new byte[lead + send.length];
        Arrays.fill(exactOctets, 0, lead, (byte) 0x99);
        System.arraycopy(send, 0, exactOctets, lead, send.length);
        ByteBuf exact = Unpooled.wrappedBuffer(exactOctets);
        byte[] roomyOctets = Arrays.copyOf(exactOctets, exactOctets.length + 32);
        Arrays.fill(roomyOctets, exactOctets.length, roomyOctets.length, (byte) 0x01);
        ByteBuf roomy = Unpooled.wrappedBuffer(roomyOctets);

        // The receive buffer is usually larger than the Send: octets after it must not matter.
        String result = validate(exact, lead, send.length);
        String again = validate(roomy, lead, send.length);
        if (!result.equals(again)) {
            throw new AssertionError("octets after the Send changed its validation: " + result + " / " + again);
        }
        if (send.length >= MessageHeader.LENGTH) {
            MessageHeader.describe(exact, lead);
        }
        if (!result.startsWith("ok ")) {
            try {
                if (send.length >= MessageHeader.LENGTH) {
                    MessageHeader.innerType(exact, lead);
                }
            } catch (RuntimeException e) {
                expectOnly(e, "from MessageHeader.innerType", MessageHeader.ProtocolException.class);
            }
            return;
        }
        MessageType type = MessageType.valueOf(result.substring(3));
        int flags = MessageHeader.flags(exact, lead);
        int credits = MessageHeader.credits(exact, lead);
        int correlationId = MessageHeader.correlationId(exact, lead);
        if (MessageHeader.type(exact, lead) != type || MessageHeader.typeCode(exact, lead) != type.code()) {
            throw new AssertionError("type() disagrees with validate() for " + hex(send));
        }
        // A valid header is one this side could have written.
        ByteBuf header = Unpooled.buffer(MessageHeader.LENGTH, MessageHeader.LENGTH);
        MessageHeader.write(header, 0, type, flags, credits, correlationId);
        byte[] written = ByteBufUtil.getBytes(header, 0, MessageHeader.LENGTH);
        if (!Arrays.equals(written, Arrays.copyOf(send, MessageHeader.LENGTH))) {
            throw new AssertionError("valid header " + hex(Arrays.copyOf(send, 8)) + " written back as " + hex(written));
        }
        int payload = send.length - MessageHeader.LENGTH;
        switch (type) {
            case CREDIT -> {
                if (payload != 0) {
                    throw new AssertionError(type + " with " + payload + " octets of payload passed validation");
                }
            }
            case READ_DONE -> {
                // Its payload is the further STags it releases, 4 octets each (docs/protocol.md, "Large messages").
                if (payload % Integer.BYTES != 0) {
                    throw new AssertionError(type + " with " + payload + " octets of payload passed validation");
                }
            }
            case LARGE -> large(exact, lead, maxLength, payload);
            case BATCH -> batch(exact, lead + MessageHeader.LENGTH, payload, correlationId);
            default -> {
            }
        }
        try {
            MessageHeader.innerType(exact, lead);
            if (type != MessageType.LARGE) {
                throw new AssertionError("innerType() of a " + type + " header");
            }
        } catch (MessageHeader.ProtocolException e) {
            if (type == MessageType.LARGE) {
                throw new AssertionError("innerType() of a valid LARGE header failed", e);
            }
        }
        // MessageBatch.error on the same payload with any count: a description or null, nothing else.
        MessageBatch.error(exact, lead + MessageHeader.LENGTH, payload, credits - 1);
    }

    private static void large(ByteBuf buf, int lead, long maxLength, int payload) {
        if (payload != LargeMessageDescriptor.LENGTH) {
            throw new AssertionError("LARGE with a " + payload + "-octet payload passed validation");
        }
        MessageType inner = MessageHeader.innerType(buf, lead);
        if (!inner.canBeLarge()) {
            throw new AssertionError("LARGE standing for " + inner);
        }
        int at = lead + MessageHeader.LENGTH;
        LargeMessageDescriptor d;
        try {
            d = LargeMessageDescriptor.read(buf, at, maxLength);
        } catch (RuntimeException e) {
            expectOnly(e, "from LargeMessageDescriptor.read", MessageHeader.ProtocolException.class);
            return;
        }
        if (d.length() < 1 || d.length() > maxLength
                || Long.compareUnsigned(d.taggedOffset() + d.length(), d.taggedOffset()) < 0
                && d.taggedOffset() + d.length() != 0) {
            throw new AssertionError("accepted " + d + " with maxLength " + maxLength);
        }
        ByteBuf out = Unpooled.buffer(LargeMessageDescriptor.LENGTH, LargeMessageDescriptor.LENGTH);
        d.write(out, 0);
        byte[] written = ByteBufUtil.getBytes(out, 0, LargeMessageDescriptor.LENGTH);
        byte[] original = ByteBufUtil.getBytes(buf, at, LargeMessageDescriptor.LENGTH);
        if (!Arrays.equals(written, original)) {
            throw new AssertionError(d + " read from " + hex(original) + ", written back as " + hex(written));
        }
        if (!d.equals(LargeMessageDescriptor.of(d.toRemoteMemory()))) {
            throw new AssertionError(d + " does not survive toRemoteMemory/of");
        }
        d.toString();
    }

    /** A validated batch: exactly {@code count} entries that fill the payload, each readable. */
    private static void batch(ByteBuf buf, int index, int payload, int count) {
        int at = 0;
        int entries = 0;
        while (at < payload) {
            int n = MessageBatch.messageLength(buf, index + at);
            if (n < 0 || n > payload - at - MessageBatch.ENTRY_HEADER) {
                throw new AssertionError("a validated BATCH has an entry of " + Integer.toUnsignedString(n)
                        + " octets at payload offset " + at + " of " + payload);
            }
            at += MessageBatch.entryLength(n);
            entries++;
        }
        if (entries != count || at != payload) {
            throw new AssertionError("a validated BATCH of " + count + " messages holds " + entries);
        }
    }
}
