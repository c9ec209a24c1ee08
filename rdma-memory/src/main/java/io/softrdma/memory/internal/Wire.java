package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/**
 * The directory's messages, each one SoftRDMA request or response (docs/protocol.md, "Memory directory"). Every
 * message starts with the version octet {@link #VERSION}; integers are big-endian; strings are a 16-bit length and
 * UTF-8.
 *
 * <pre>
 * request  = version:u8 op:u8 body
 *   RESOLVE  op 1: name:str [previousLeaseId:u64]
 *   RENEW    op 2: leaseId:u64
 *   RELEASE  op 3: leaseId:u64
 *   SERVICE  op 4: name:str payload:rest
 * response = version:u8 status:u8 body
 *   OK (0) to RESOLVE: leaseId:u64 stag:u32 baseTO:u64 length:u64 rights:u8 leaseMillis:u64 previousEnd:u8
 *   OK (0) to RENEW:   leaseMillis:u64
 *   OK (0) to RELEASE: (empty)
 *   OK (0) to SERVICE: payload:rest
 *   NO_SUCH (1), DENIED (2), LEASE_GONE (3), BAD_REQUEST (4), SERVICE_FAILED (5): message:str
 * </pre>
 */
public final class Wire {
    public static final int VERSION = 1;

    public static final int RESOLVE = 1;
    public static final int RENEW = 2;
    public static final int RELEASE = 3;
    public static final int SERVICE = 4;

    public static final int OK = 0;
    public static final int NO_SUCH = 1;
    public static final int DENIED = 2;
    public static final int LEASE_GONE = 3;
    public static final int BAD_REQUEST = 4;
    public static final int SERVICE_FAILED = 5;

    /** Rights as bits of one octet: READ 1, WRITE 2, ATOMIC 4. */
    public static final int READ_BIT = 1;
    public static final int WRITE_BIT = 2;
    public static final int ATOMIC_BIT = 4;

    private Wire() {
    }

    /** A RESOLVE; {@code previous} is the id of the lease this client lost, or null. */
    public static ByteBuf resolve(ByteBufAllocator alloc, String name, Long previous) {
        ByteBuf b = alloc.buffer(12 + name.length() * 3);
        b.writeByte(VERSION).writeByte(RESOLVE);
        writeString(b, name);
        if (previous != null) {
            b.writeLong(previous);
        }
        return b;
    }

    /** Octets of the body of an OK to RESOLVE. */
    public static final int LEASE_LENGTH = 38;

    public static ByteBuf renew(ByteBufAllocator alloc, long leaseId) {
        return alloc.buffer(10).writeByte(VERSION).writeByte(RENEW).writeLong(leaseId);
    }

    public static ByteBuf release(ByteBufAllocator alloc, long leaseId) {
        return alloc.buffer(10).writeByte(VERSION).writeByte(RELEASE).writeLong(leaseId);
    }

    /** The header of a SERVICE request; its payload follows. */
    public static ByteBuf serviceHeader(ByteBufAllocator alloc, String name) {
        ByteBuf b = alloc.buffer(4 + name.length() * 3);
        b.writeByte(VERSION).writeByte(SERVICE);
        writeString(b, name);
        return b;
    }

    public static ByteBuf ok(ByteBufAllocator alloc, int bodyLength) {
        return alloc.buffer(2 + bodyLength).writeByte(VERSION).writeByte(OK);
    }

    public static ByteBuf failure(ByteBufAllocator alloc, int status, String message) {
        ByteBuf b = alloc.buffer(4 + message.length() * 3);
        b.writeByte(VERSION).writeByte(status);
        writeString(b, message);
        return b;
    }

    public static void writeString(ByteBuf b, String s) {
        int lengthAt = b.writerIndex();
        b.writeShort(0);
        int written = ByteBufUtil.writeUtf8(b, s);
        if (written > 0xffff) {
            throw new IllegalArgumentException("a string of " + written + " UTF-8 octets does not fit a 16-bit length");
        }
        b.setShort(lengthAt, written);
    }

    /**
     * Reads a string.
     *
     * @throws IllegalArgumentException if it runs past the message
     */
    public static String readString(ByteBuf b) {
        if (b.readableBytes() < 2) {
            throw new IllegalArgumentException("message ends before a string's length");
        }
        int length = b.readUnsignedShort();
        if (b.readableBytes() < length) {
            throw new IllegalArgumentException("a string of " + length + " octets runs past the message");
        }
        String s = b.toString(b.readerIndex(), length, StandardCharsets.UTF_8);
        b.skipBytes(length);
        return s;
    }
}
