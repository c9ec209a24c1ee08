package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.internal.ObjectPool;
import io.softrdma.internal.transport.ByteBufCopy;
import java.util.Objects;

/**
 * A ULPDU handed to the {@link FpduEncoder} in two parts: a small header (the DDP/RDMAP header, which
 * the encoder copies into the FPDU's first buffer) and a payload that goes out as it is, typically a
 * slice of registered memory, so that the payload is never copied on send.
 *
 * <p>Instances are pooled and carry their own header buffer ({@link #MAX_HEADER_LENGTH} octets, on
 * the heap, plus room for a short payload): the caller writes the header into {@link #header()}, so
 * steady-state sending allocates neither holders nor header buffers. A payload of at most
 * {@link FpduEncoder#COPY_LIMIT} octets may instead be copied in after the header
 * ({@link #appendPayload}): the encoder would copy it anyway, and this spares a slice of the source.
 *
 * <p>Ownership: {@link #newInstance} takes the payload; the encoder releases it and recycles the holder.
 * The holder is reference counted like a buffer, so whatever drops it unwritten (a closed channel,
 * Netty's own cleanup) releases the payload too.
 *
 * <p>Thread safety: not thread-safe; build and write it on one thread.
 */
public final class GatheredUlpdu extends AbstractReferenceCounted {
    /** The longest header: a Terminate (18-octet DDP header, 4 + 2 + 18 + 28 octets) fits. */
    public static final int MAX_HEADER_LENGTH = 96;

    private static final ObjectPool<GatheredUlpdu> POOL = ObjectPool.newPool(GatheredUlpdu::new);

    private final ObjectPool.Handle<GatheredUlpdu> handle;
    /** The header, then a payload copied in after it. */
    static final int CAPACITY = MAX_HEADER_LENGTH + FpduEncoder.COPY_LIMIT;

    private final ByteBuf header = Unpooled.buffer(CAPACITY, CAPACITY);
    private ByteBuf payload;
    private int appended;

    private GatheredUlpdu(ObjectPool.Handle<GatheredUlpdu> handle) {
        this.handle = handle;
    }

    /** A ULPDU with an empty header (to be written) followed by {@code payload}; takes ownership of it. */
    public static GatheredUlpdu newInstance(ByteBuf payload) {
        GatheredUlpdu u = POOL.get();
        u.setRefCnt(1);
        u.header.clear();
        u.appended = 0;
        u.payload = Objects.requireNonNull(payload, "payload");
        return u;
    }

    /** A ULPDU of a copy of {@code header}'s readable octets and {@code payload}; takes ownership of both. */
    public static GatheredUlpdu newInstance(ByteBuf header, ByteBuf payload) {
        GatheredUlpdu u = newInstance(payload);
        try {
            u.header.writeBytes(header, header.readerIndex(), header.readableBytes());
        } finally {
            header.release();
        }
        return u;
    }

    /** The header to write; owned by this holder (never release it). */
    public ByteBuf header() {
        return header;
    }

    public ByteBuf payload() {
        return payload;
    }

    /**
     * Copies {@code length} octets of {@code source} from absolute {@code index} in after the header, which
     * must be complete, as the start of the payload; at most {@link FpduEncoder#COPY_LIMIT} octets.
     */
    public void appendPayload(ByteBuf source, int index, int length) {
        if (length > FpduEncoder.COPY_LIMIT) {
            throw new IllegalArgumentException(length + " octets exceed the " + FpduEncoder.COPY_LIMIT
                    + " a payload may be copied in");
        }
        // Not header.writeBytes(source, ...): without Unsafe (Java 25) Netty makes a ByteBuffer view per copy.
        header.ensureWritable(length);
        int at = header.writerIndex();
        ByteBufCopy.getBytes(source, index, header.array(), header.arrayOffset() + at, length);
        header.writerIndex(at + length);
        appended += length;
    }

    /** The payload's octets: those copied in after the header and those of the payload buffer. */
    public int payloadLength() {
        return appended + payload.readableBytes();
    }

    /** ULPDU_Length: the readable octets of header and payload. */
    public int length() {
        return header.readableBytes() + payload.readableBytes();
    }

    /** Releases the payload and returns this holder to the pool (when the count reaches zero). */
    @Override
    protected void deallocate() {
        ByteBuf p = payload;
        payload = null;
        handle.recycle(this);
        if (p != null) {
            p.release();
        }
    }

    @Override
    public GatheredUlpdu touch(Object hint) {
        if (payload != null) {
            payload.touch(hint);
        }
        return this;
    }

    /** Hands the payload to the caller and returns this holder to the pool. */
    ByteBuf recycleTakingPayload() {
        ByteBuf p = payload;
        payload = null;
        handle.recycle(this);
        return p;
    }
}
