package io.softrdma.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.internal.mpa.Crc32c;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryWindows} hands out views of exactly the octets asked for, learned once per pool chunk from a
 * confined buffer and once per buffer from a shared one, and {@link Crc32c} read through them computes the
 * same value as over a copy, for buffers in many chunks, released and allocated again.
 */
class MemoryWindowsTest {
    @Test
    void aWindowHoldsExactlyTheRangeOfTheBuffer() {
        ByteBuf buf = filled(PooledByteBufAllocator.DEFAULT.directBuffer(5000, 5000), 3);
        try {
            ByteBuffer w = MemoryWindows.current().window(buf, 100, 1200, true);
            assertThat(w).isNotNull();
            assertThat(w.remaining()).isEqualTo(1200);
            byte[] actual = new byte[1200];
            w.duplicate().get(actual);
            byte[] expected = new byte[1200];
            buf.getBytes(100, expected);
            assertThat(actual).isEqualTo(expected);
            // A slice is found by its own address: the same octets.
            ByteBuf slice = buf.slice(100, 1200);
            ByteBuffer ws = MemoryWindows.current().window(slice, 0, 1200, true);
            byte[] viaSlice = new byte[1200];
            ws.duplicate().get(viaSlice);
            assertThat(viaSlice).isEqualTo(expected);
        } finally {
            buf.release();
        }
    }

    @Test
    void aConfinedBufferTeachesAWindowOverItsWholeChunk() {
        ByteBuf first = PooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024, 64 * 1024);
        ByteBuf second = PooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024, 64 * 1024);
        try {
            // Adjacent in one chunk: their offsets in the chunk's view differ as their addresses do.
            boolean sameChunk = second.memoryAddress() - first.memoryAddress()
                    == second.internalNioBuffer(0, 1).position() - first.internalNioBuffer(0, 1).position();
            assumeTrue(sameChunk, "the pool gave two 64 KiB buffers from different chunks");
            MemoryWindows.current().cover(first);
            ByteBuffer a = MemoryWindows.current().window(first, 0, 10, false);
            // Same 4 MiB chunk, next to the first: served by the window the first one taught, not a new view.
            ByteBuffer b = MemoryWindows.current().window(second, 0, 10, false);
            assertThat(b).isSameAs(a);
            assertThat(a.capacity()).isGreaterThan(first.capacity());
        } finally {
            first.release();
            second.release();
        }
    }

    @Test
    void aSharedBufferIsLearnedWithoutItsInternalView() {
        ByteBuf region = filled(Unpooled.directBuffer(8192, 8192), 9);
        try {
            ByteBuffer internal = region.internalNioBuffer(10, 20);
            ByteBuffer w = MemoryWindows.current().window(region, 4000, 2000, false);
            assertThat(w).isNotNull().isNotSameAs(internal);
            // The region's own view, which other threads may be using, was not moved.
            assertThat(internal.position()).isEqualTo(10);
            assertThat(internal.limit()).isEqualTo(30);
            assertThat(w.get(w.position())).isEqualTo(region.getByte(4000));
        } finally {
            region.release();
        }
    }

    /**
     * A buffer larger than a chunk is a chunk of its own, freed on release, and the next one of that size usually
     * takes the same addresses. On Java 25 without native access (Netty's chunks then in FFM arenas) a window over
     * the freed one throws instead of reading, and the CRC and the copy must learn a live window instead: run
     * {@code JAVA_HOME=<jdk 25> ./mvnw verify -pl rdma-core -Dsurefire.jdkArgLine=-Dx=y -Dtest=MemoryWindowsTest}
     * (the build's Java 25 profile grants native access, where Netty frees with free() and the window reads the
     * live memory there now).
     */
    @Test
    void aWindowOverFreedMemoryIsReplacedByALiveOne() {
        int size = 8 << 20;
        Crc32c crc = new Crc32c();
        ByteBuf source = filled(Unpooled.directBuffer(4096, 4096), 5);
        try {
            for (int i = 0; i < 3; i++) {
                ByteBuf gone = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
                MemoryWindows.current().cover(gone);
                gone.release();
                ByteBuf live = filled(PooledByteBufAllocator.DEFAULT.directBuffer(size, size), i);
                try {
                    assertThat(crc.reset().update(live, 1000, 70_000).value()).isEqualTo(reference(live, 1000, 70_000));
                    live.writerIndex(100);
                    ByteBufCopy.append(source, source.nioBuffer(0, 4096), 10, live, 3000);
                    assertThat(ByteBufUtil.equals(live, 100, source, 10, 3000)).isTrue();
                } finally {
                    live.release();
                }
            }
        } finally {
            source.release();
        }
    }

    @Test
    void aBufferWithoutAMemoryAddressHasNoWindow() {
        assertThat(MemoryWindows.current().window(Unpooled.buffer(64), 0, 64, true)).isNull();
    }

    @Test
    void crcThroughWindowsEqualsCrcOfACopyAcrossChunksAndReuse() {
        List<ByteBuf> live = new ArrayList<>();
        Crc32c confined = Crc32c.confined();
        Crc32c shared = new Crc32c();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            // Enough 64 KiB buffers to fill several 4 MiB chunks, released in a random order and allocated again.
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 150; i++) {
                    live.add(filled(PooledByteBufAllocator.DEFAULT.directBuffer(65536, 65536), random.nextInt()));
                }
                for (ByteBuf buf : live) {
                    int index = random.nextInt(2000);
                    int length = 1025 + random.nextInt(60000);
                    int expected = reference(buf, index, length);
                    assertThat(confined.reset().update(buf, index, length).value()).isEqualTo(expected);
                    assertThat(shared.reset().update(buf.slice(index, length), 0, length).value())
                            .isEqualTo(expected);
                }
                for (int i = 0; i < 100; i++) {
                    live.remove(random.nextInt(live.size())).release();
                }
            }
        } finally {
            live.forEach(ByteBuf::release);
        }
    }

    private static int reference(ByteBuf buf, int index, int length) {
        byte[] copy = new byte[length];
        buf.getBytes(index, copy);
        CRC32C crc = new CRC32C();
        crc.update(copy);
        return (int) crc.getValue();
    }

    private static ByteBuf filled(ByteBuf buf, int seed) {
        byte[] octets = new byte[buf.capacity()];
        for (int i = 0; i < octets.length; i++) {
            octets[i] = (byte) (seed + i * 31);
        }
        return buf.writeBytes(octets);
    }
}
