package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Length-prefixed frames out of a TCP stream's reads: a 4-octet big-endian length, then that many octets of
 * body; a body longer than {@link #ALIGNED_OVER} octets follows a header padded to {@link #ALIGNED_HEADER}
 * octets, so that large bodies keep the 64-octet alignment a stream of them had (NVMe/TCP aligns its PDU data
 * for the same reason: copies into and out of the socket are measurably slower on bodies shifted by 4 octets).
 * Decoded the way a throughput-minded Netty application does it: in place, with no
 * object per frame. A frame whose body arrives whole in one read is handed on as an index range of
 * that read's buffer; a header split across reads is gathered in a field; a body split across reads
 * is either skipped ({@link #skip}: only the count matters) or gathered into one buffer kept for the
 * connection ({@link #read}), the one copy a length-field decoder makes for a frame it must see whole.
 *
 * <p>Thread safety: the channel's event loop only. Buffer ownership: the caller keeps {@code in} (and
 * releases it); the gathering buffer is this reader's until {@link #release}.
 */
final class FrameReader {
    /** Octets of the length field, and of a header before a body of up to {@link #ALIGNED_OVER} octets. */
    static final int HEADER = 4;
    /** Bodies longer than this are aligned: their header is {@link #ALIGNED_HEADER} octets. */
    static final int ALIGNED_OVER = 4096;
    /** The header before a large body: the length field and padding to a cache line. */
    static final int ALIGNED_HEADER = 64;

    /** Octets of the header before a body of {@code length} octets. */
    static int headerOctets(int length) {
        return length > ALIGNED_OVER ? ALIGNED_HEADER : HEADER;
    }

    /** A frame's body, valid only during the call. */
    @FunctionalInterface
    interface Sink {
        /**
         * Takes the body at {@code index}, {@code length} octets of {@code buf} (not to be released).
         *
         * @return whether to go on; false leaves the rest of the read unread
         */
        boolean frame(ByteBuf buf, int index, int length);
    }

    private final int maxLength;
    /** Octets of the current length field read so far (0 at a frame boundary); its value so far. */
    private int headerRead;
    private int length;
    /** Padding and body octets of the current frame still to come; -1 while not in a frame's rest. */
    private int remaining = -1;
    /** Of those, padding octets ({@link #read} only). */
    private int padding;
    /** A body split across reads, gathered ({@link #read} only). */
    private ByteBuf partial;

    /** @param maxLength the largest body a peer may announce; more is a protocol error */
    FrameReader(int maxLength) {
        this.maxLength = maxLength;
    }

    /**
     * Reads what {@code in} holds, bodies skipped, and returns how many frames it completed.
     *
     * @throws IllegalStateException on a length outside 0 to the maximum
     */
    long skip(ByteBuf in) {
        long frames = 0;
        while (true) {
            if (remaining >= 0) {
                int n = Math.min(remaining, in.readableBytes());
                in.skipBytes(n);
                remaining -= n;
                if (remaining > 0) {
                    return frames;
                }
                remaining = -1;
                frames++;
            }
            if (!header(in)) {
                return frames;
            }
            int rest = headerOctets(length) - HEADER + length;
            int readable = in.readableBytes();
            if (readable >= rest) {
                // The common case, the whole frame in this read.
                in.skipBytes(rest);
                frames++;
            } else {
                in.skipBytes(readable);
                remaining = rest - readable;
            }
        }
    }

    /**
     * Reads what {@code in} holds and hands each completed frame's body to {@code sink}, until it says
     * stop.
     *
     * @throws IllegalStateException on a length outside 0 to the maximum
     */
    void read(ByteBufAllocator alloc, ByteBuf in, Sink sink) {
        while (true) {
            if (remaining >= 0) {
                int skip = Math.min(padding, in.readableBytes());
                in.skipBytes(skip);
                padding -= skip;
                remaining -= skip;
                int n = Math.min(remaining, in.readableBytes());
                partial.writeBytes(in, n);
                remaining -= n;
                if (remaining > 0) {
                    return;
                }
                remaining = -1;
                boolean more = sink.frame(partial, partial.readerIndex(), length);
                partial.clear();
                if (!more) {
                    return;
                }
            }
            if (!header(in)) {
                return;
            }
            int pad = headerOctets(length) - HEADER;
            if (in.readableBytes() >= pad + length) {
                int index = in.readerIndex() + pad;
                in.skipBytes(pad + length);
                if (!sink.frame(in, index, length)) {
                    return;
                }
            } else {
                if (partial == null) {
                    partial = alloc.directBuffer(maxLength, maxLength);
                }
                // The rest of this read, and of the frame later, through the branch above.
                remaining = pad + length;
                padding = pad;
            }
        }
    }

    /** Reads a length field, or what {@code in} has of it; true with {@link #length} set when whole. */
    private boolean header(ByteBuf in) {
        if (headerRead == 0 && in.readableBytes() >= HEADER) {
            length = in.readInt();
        } else {
            if (headerRead == 0) {
                length = 0;
            }
            while (headerRead < HEADER) {
                if (!in.isReadable()) {
                    return false;
                }
                length = length << 8 | in.readUnsignedByte();
                headerRead++;
            }
            headerRead = 0;
        }
        if (length < 0 || length > maxLength) {
            throw new IllegalStateException("a frame of " + (length & 0xFFFFFFFFL) + " octets; at most " + maxLength
                    + " expected");
        }
        return true;
    }

    /** Releases the gathering buffer. */
    void release() {
        if (partial != null) {
            partial.release();
            partial = null;
        }
    }
}
