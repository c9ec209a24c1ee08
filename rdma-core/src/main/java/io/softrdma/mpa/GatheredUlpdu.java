package io.softrdma.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.ObjectPool;
import java.util.Objects;

/**
 * A ULPDU handed to the {@link FpduEncoder} in two parts: a small header (the DDP/RDMAP header,
 * copied into the FPDU's first buffer) and a payload that goes out as it is, typically a slice of
 * registered memory, so that the payload is never copied on send.
 *
 * <p>Ownership: {@link #newInstance} takes both buffers; the encoder releases them and recycles this
 * holder. Instances are pooled, so steady-state sending allocates none.
 *
 * <p>Thread safety: not thread-safe; build and write it on one thread.
 */
public final class GatheredUlpdu {
    private static final ObjectPool<GatheredUlpdu> POOL = ObjectPool.newPool(GatheredUlpdu::new);

    private final ObjectPool.Handle<GatheredUlpdu> handle;
    private ByteBuf header;
    private ByteBuf payload;

    private GatheredUlpdu(ObjectPool.Handle<GatheredUlpdu> handle) {
        this.handle = handle;
    }

    /** A ULPDU of {@code header} followed by {@code payload}; takes ownership of both. */
    public static GatheredUlpdu newInstance(ByteBuf header, ByteBuf payload) {
        GatheredUlpdu u = POOL.get();
        u.header = Objects.requireNonNull(header, "header");
        u.payload = Objects.requireNonNull(payload, "payload");
        return u;
    }

    public ByteBuf header() {
        return header;
    }

    public ByteBuf payload() {
        return payload;
    }

    /** ULPDU_Length: the readable octets of header and payload. */
    public int length() {
        return header.readableBytes() + payload.readableBytes();
    }

    /** Releases both buffers and returns this holder to the pool. */
    public void release() {
        ByteBuf h = header;
        ByteBuf p = payload;
        header = null;
        payload = null;
        try {
            if (h != null) {
                h.release();
            }
        } finally {
            if (p != null) {
                p.release();
            }
            handle.recycle(this);
        }
    }

    void recycleKeepingBuffers() {
        header = null;
        payload = null;
        handle.recycle(this);
    }
}
