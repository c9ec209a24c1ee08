package io.softrdma.reactive.internal.protocol;

import io.netty.buffer.ByteBuf;
import io.softrdma.reactive.internal.protocol.MessageHeader.ProtocolException;
import io.softrdma.verbs.RemoteMemory;
import io.softrdma.verbs.RemoteMemoryCodec;

/**
 * The payload of a {@link MessageType#LARGE} message: where the real message lies, in a region the sender
 * registered with remote read access for the receiver to RDMA-Read (RFC 5040 §2.3 "Advertisement"). 16 octets,
 * big-endian, right after the {@link MessageHeader}, in {@link RemoteMemoryCodec#STAG_OFFSET_LENGTH}'s layout:
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |                           STag (32)                           |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 |                      tagged offset (64)                       |
 *    +                                                               +
 *  8 |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 12 |                          length (32)                          |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Valid when {@code length} is 1 to 2<sup>32</sup>−1 octets and {@code taggedOffset + length} does not wrap
 * past 2<sup>64</sup> (the RFC 5041 §7.2 "TO wrap" error, EType 1 code 3, the Read would meet). A receiver also
 * refuses a length above its largest message ({@link #read(ByteBuf, int, long)}), before allocating anything.
 *
 * <p>Thread safety: immutable.
 *
 * @param stag the Steering Tag of the sender's region
 * @param taggedOffset the tagged offset of the message's first octet, an unsigned 64-bit value
 * @param length the message's length in octets, 1 to 2<sup>32</sup>−1
 */
public record LargeMessageDescriptor(int stag, long taggedOffset, long length) {
    /** Octets of a descriptor. */
    public static final int LENGTH = 16;
    /** Offset of the STag. */
    public static final int STAG_OFFSET = 0;
    /** Offset of the tagged offset. */
    public static final int TAGGED_OFFSET_OFFSET = 4;
    /** Offset of the length. */
    public static final int LENGTH_OFFSET = 12;
    /** The largest length the 32-bit field holds. */
    public static final long MAX_LENGTH = 0xFFFF_FFFFL;

    /**
     * Validates the fields.
     *
     * @param stag the Steering Tag of the sender's region
     * @param taggedOffset the tagged offset of the message's first octet, unsigned
     * @param length the message's length in octets, 1 to {@link #MAX_LENGTH}
     * @throws IllegalArgumentException if the length is out of range or the region would wrap past 2<sup>64</sup>
     */
    public LargeMessageDescriptor {
        String error = error(taggedOffset, length);
        if (error != null) {
            throw new IllegalArgumentException(error);
        }
    }

    /**
     * The descriptor of the whole of {@code memory}, as {@link io.softrdma.verbs.MemoryRegion#advertise()} gives it.
     *
     * @param memory the region, or part of one, holding the message
     * @return its descriptor
     * @throws IllegalArgumentException if its length is 0 or above {@link #MAX_LENGTH}
     */
    public static LargeMessageDescriptor of(RemoteMemory memory) {
        return new LargeMessageDescriptor(memory.stag(), memory.taggedOffset(), memory.length());
    }

    /**
     * The memory to RDMA-Read, for {@link io.softrdma.verbs.SendWorkRequest#read}.
     *
     * @return the region as remote memory
     */
    public RemoteMemory toRemoteMemory() {
        return new RemoteMemory(stag, taggedOffset, length);
    }

    /**
     * Writes this descriptor at {@code index}; the buffer's indices do not move.
     *
     * @param buf the buffer, with at least {@link #LENGTH} octets of capacity from {@code index}
     * @param index absolute index of the descriptor's first octet (a LARGE header's index plus
     *        {@link MessageHeader#LENGTH})
     */
    public void write(ByteBuf buf, int index) {
        RemoteMemoryCodec.STAG_OFFSET_LENGTH.set(buf, index, stag, taggedOffset, length);
    }

    /**
     * Reads and validates a received descriptor.
     *
     * @param buf the receive buffer
     * @param index absolute index of the descriptor
     * @return the descriptor
     * @throws ProtocolException if the length is 0 or the region wraps past 2<sup>64</sup>
     */
    public static LargeMessageDescriptor read(ByteBuf buf, int index) {
        return read(buf, index, MAX_LENGTH);
    }

    /**
     * Reads and validates a received descriptor against the largest message this side accepts.
     *
     * @param buf the receive buffer
     * @param index absolute index of the descriptor
     * @param maxLength the largest message, in octets, this side will allocate and read (1 to
     *        {@link #MAX_LENGTH})
     * @return the descriptor
     * @throws ProtocolException if the length is 0 or above {@code maxLength}, or the region wraps past
     *         2<sup>64</sup>
     * @throws IllegalArgumentException if {@code maxLength} is out of range
     */
    public static LargeMessageDescriptor read(ByteBuf buf, int index, long maxLength) {
        if (maxLength < 1 || maxLength > MAX_LENGTH) {
            throw new IllegalArgumentException("maxLength " + maxLength + " is outside 1.." + MAX_LENGTH);
        }
        int stag = RemoteMemoryCodec.STAG_OFFSET_LENGTH.stag(buf, index);
        long taggedOffset = RemoteMemoryCodec.STAG_OFFSET_LENGTH.taggedOffset(buf, index);
        long length = RemoteMemoryCodec.STAG_OFFSET_LENGTH.length(buf, index);
        String error = error(taggedOffset, length);
        if (error == null && length > maxLength) {
            error = "length " + length + " exceeds the " + maxLength + " octets this side accepts in one message";
        }
        if (error != null) {
            throw new ProtocolException(String.format("LARGE descriptor {STag=0x%08x TO=0x%x length=%d}: %s", stag,
                    taggedOffset, length, error));
        }
        return new LargeMessageDescriptor(stag, taggedOffset, length);
    }

    private static String error(long taggedOffset, long length) {
        if (length < 1 || length > MAX_LENGTH) {
            return "length " + length + " is outside 1.." + MAX_LENGTH;
        }
        // TO + length must not exceed 2^64: TO <= 2^64 - length, unsigned; -length is 2^64 - length.
        if (Long.compareUnsigned(taggedOffset, -length) > 0) {
            return "tagged offset " + Long.toUnsignedString(taggedOffset) + " + length " + length
                    + " wraps past 2^64 (RFC 5041 §7.2, TO wrap)";
        }
        return null;
    }

    /**
     * The fields, the STag and tagged offset in hexadecimal.
     *
     * @return a description
     */
    @Override
    public String toString() {
        return String.format("LargeMessageDescriptor{STag=0x%08x TO=0x%x length=%d}", stag, taggedOffset, length);
    }
}
