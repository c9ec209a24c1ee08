package io.softrdma.memory.cache.internal;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32C;

/**
 * CRC-32C (Castagnoli, the checksum MPA uses, RFC 5044 §4.4) over a range of a buffer: what makes buckets, entries and
 * the table header self-verifying, so a reader that raced a writer sees a mismatch instead of a torn value.
 *
 * <p>Thread safety: stateless.
 */
public final class Checksums {
    private Checksums() {
    }

    /** CRC-32C of {@code length} octets of {@code buf} from {@code index}; does not move the indices. */
    public static int crc32c(ByteBuf buf, int index, int length) {
        CRC32C crc = new CRC32C();
        if (buf.nioBufferCount() == 1) {
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (int i = 0; i < length; i++) {
                crc.update(buf.getByte(index + i));
            }
        }
        return (int) crc.getValue();
    }
}
