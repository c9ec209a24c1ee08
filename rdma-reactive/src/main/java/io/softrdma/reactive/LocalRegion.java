package io.softrdma.reactive;

import io.netty.buffer.ByteBuf;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.RemoteMemory;
import reactor.core.Disposable;

/**
 * Memory registered on a session's protection domain: what the peer needs to reach it is
 * {@link #remote()} (STag, tagged offset, length: send it over), and disposing it invalidates the STag
 * at once (RFC 5040 §2.3: the peer's later access fails as "invalid STag") and deregisters it.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class LocalRegion implements Disposable {
    private final MemoryRegion region;
    private volatile boolean disposed;

    LocalRegion(MemoryRegion region) {
        this.region = region;
    }

    /** The STag, tagged offset and length the peer uses to RDMA Read or Write this region. */
    public RemoteMemory remote() {
        return region.advertise();
    }

    /**
     * The registered memory, index 0 being the region's first octet. Owned by the region: do not
     * release it; its contents are indeterminate while an operation uses it (RFC 5040 §5.5).
     */
    public ByteBuf buffer() {
        return region.buffer();
    }

    /** Octets in the region. */
    public int length() {
        return region.length();
    }

    MemoryRegion memoryRegion() {
        return region;
    }

    /** Invalidates the STag and deregisters the memory. */
    @Override
    public void dispose() {
        if (!disposed) {
            disposed = true;
            region.invalidate();
            region.close();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    @Override
    public String toString() {
        return "LocalRegion{" + region.advertise() + (disposed ? ", disposed" : "") + "}";
    }
}
