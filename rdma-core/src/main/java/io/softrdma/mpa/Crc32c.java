package io.softrdma.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32c (Castagnoli) over {@link ByteBuf} ranges, computed with {@link CRC32C} (a JDK intrinsic) as
 * RFC 5044 §4.4 requires ("the CRC32c polynomial in the manner described in the iSCSI Protocol").
 *
 * <p>The FPDU trailer carries the standard CRC32c value least-significant octet first, as iSCSI and
 * Linux siw do: RFC 5044 Figure 5's trailer {@code 52 23 99 83} is the value {@code 0x83992352}.
 *
 * <p>Thread safety: stateless; the {@link CRC32C} passed in belongs to the caller.
 */
public final class Crc32c {
    private Crc32c() {
    }

    /** Feeds {@code length} octets of {@code buf} from absolute {@code index} into {@code crc}. */
    public static void update(CRC32C crc, ByteBuf buf, int index, int length) {
        if (length == 0) {
            return;
        }
        ByteBuf unwrapped = buf.unwrap();
        while (unwrapped != null && unwrapped.capacity() == buf.capacity() && !(buf instanceof CompositeByteBuf)) {
            // A duplicate (or a read-only or leak-tracking view) uses its parent's indexes; the parent's
            // cached NIO view then costs no allocation, where the derived buffer's would.
            buf = unwrapped;
            unwrapped = buf.unwrap();
        }
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf instanceof CompositeByteBuf composite) {
            updateComposite(crc, composite, index, length);
        } else if (buf.nioBufferCount() == 1) {
            // A pooled buffer hands out its cached ByteBuffer view: no allocation.
            crc.update(buf.internalNioBuffer(index, length));
        } else {
            for (ByteBuffer nio : buf.nioBuffers(index, length)) {
                crc.update(nio);
            }
        }
    }

    private static void updateComposite(CRC32C crc, CompositeByteBuf composite, int index, int length) {
        int component = composite.toComponentIndex(index);
        while (length > 0) {
            int start = composite.toByteIndex(component);
            ByteBuf part = composite.internalComponent(component);
            int offset = index - start;
            int n = Math.min(length, part.capacity() - offset);
            update(crc, part, offset, n);
            index += n;
            length -= n;
            component++;
        }
    }

    /** The CRC32c of a range, as the unsigned 32-bit value. */
    public static int compute(ByteBuf buf, int index, int length) {
        CRC32C crc = new CRC32C();
        update(crc, buf, index, length);
        return (int) crc.getValue();
    }
}
