package io.softrdma.internal.transport;

import io.netty.channel.FileRegion;
import java.nio.channels.WritableByteChannel;

/**
 * A write of nothing, whose promise completes once everything written before it on the channel has
 * been handed to TCP: a layer that needs to know when its bytes left (RDMAP's rule that a Send is
 * complete once TCP took it, RFC 5040 §5.5 rule 14) asks with one promise, only when a flush did not
 * already hand everything over.
 *
 * <p>It is a zero-length {@link FileRegion}, which Netty's socket channels accept and retire in
 * order without a system call. The one instance is shared and never freed: its reference count does
 * not change. The MPA encoder passes it through unframed; any handler below MPA must pass it through
 * too: a TLS handler refuses it, so {@link TlsBarrierAdapter} goes between MPA and TLS.
 *
 * <p>Thread safety: immutable.
 */
public final class WriteBarrier implements FileRegion {
    /** The barrier. */
    public static final WriteBarrier INSTANCE = new WriteBarrier();

    private WriteBarrier() {
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    @Deprecated
    public long transfered() {
        return 0;
    }

    @Override
    public long transferred() {
        return 0;
    }

    @Override
    public long count() {
        return 0;
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) {
        return 0;
    }

    @Override
    public WriteBarrier retain() {
        return this;
    }

    @Override
    public WriteBarrier retain(int increment) {
        return this;
    }

    @Override
    public WriteBarrier touch() {
        return this;
    }

    @Override
    public WriteBarrier touch(Object hint) {
        return this;
    }

    @Override
    public int refCnt() {
        return 1;
    }

    @Override
    public boolean release() {
        return false;
    }

    @Override
    public boolean release(int decrement) {
        return false;
    }

    @Override
    public String toString() {
        return "WriteBarrier";
    }
}
