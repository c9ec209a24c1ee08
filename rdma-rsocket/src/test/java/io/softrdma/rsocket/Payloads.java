package io.softrdma.rsocket;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.rsocket.Payload;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.util.zip.CRC32C;

/** Payloads for tests: text, numbered, and large ones whose content is checked by a CRC. */
final class Payloads {
    private Payloads() {
    }

    static Payload text(String data) {
        return DefaultPayload.create(data);
    }

    static Payload text(String data, String metadata) {
        return DefaultPayload.create(data, metadata);
    }

    /** A payload whose data is the 8-octet {@code index}. */
    static Payload numbered(long index) {
        return ByteBufPayload.create(ByteBufAllocator.DEFAULT.buffer(8).writeLong(index));
    }

    /** The data as text; releases {@code p} (a payload received is the receiver's to release). */
    static String utf8(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }

    /** The index of a {@link #numbered} payload; releases {@code p}. */
    static long index(Payload p) {
        try {
            return p.data().getLong(p.data().readerIndex());
        } finally {
            p.release();
        }
    }

    /**
     * {@code size} octets of a pattern that depends on {@code seed}, in pooled direct memory. Made in a heap array and
     * written at once: at PARANOID every access to a buffer records where it came from, and a megabyte written an int
     * at a time would take seconds.
     */
    static ByteBuf pattern(int size, int seed) {
        byte[] octets = new byte[size];
        for (int i = 0; i < size; i++) {
            octets[i] = (byte) ((i * 31 + seed) ^ (i >>> 7));
        }
        return PooledByteBufAllocator.DEFAULT.directBuffer(size, size).writeBytes(octets);
    }

    /** The CRC32C of {@code b}'s readable octets. */
    static long crc(ByteBuf b) {
        CRC32C crc = new CRC32C();
        crc.update(b.nioBuffer(b.readerIndex(), b.readableBytes()));
        return crc.getValue();
    }

    static String utf8(ByteBuf b) {
        return b.toString(UTF_8);
    }
}
