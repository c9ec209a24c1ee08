package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The raw-TCP baseline's frame decoder on a stream cut anywhere: every frame counted once, every body seen whole
 * and in order, however the reads split headers and bodies.
 */
class FrameReaderTest {
    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    /**
     * Frames of the given body lengths, each body filled with its frame's number (bodies over 4 KiB after a header
     * padded to 64 octets, the padding filled with 0xEE so that a reader that takes it for body is seen to).
     */
    private static ByteBuf stream(int... lengths) {
        java.nio.ByteBuffer octets = java.nio.ByteBuffer.allocate(
                Arrays.stream(lengths).map(n -> FrameReader.headerOctets(n) + n).sum());
        for (int i = 0; i < lengths.length; i++) {
            octets.putInt(lengths[i]);
            for (int j = FrameReader.HEADER; j < FrameReader.headerOctets(lengths[i]); j++) {
                octets.put((byte) 0xEE);
            }
            for (int j = 0; j < lengths[i]; j++) {
                octets.put((byte) i);
            }
        }
        // One write: the leak detector records every call on a buffer.
        return ALLOC.directBuffer(octets.capacity()).writeBytes(octets.flip());
    }

    /** {@code whole} cut into reads at the given positions, released as a channel's reads would be. */
    private static List<ByteBuf> cut(ByteBuf whole, int... at) {
        List<ByteBuf> reads = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            reads.add(whole.retainedSlice(from, to - from));
            from = to;
        }
        reads.add(whole.retainedSlice(from, whole.writerIndex() - from));
        whole.release();
        return reads;
    }

    @Test
    void countsFramesSplitAnywhere() {
        int[] lengths = {64, 0, 5, 4097, 700, 64, 1};
        ByteBuf probe = stream(lengths);
        int total = probe.writerIndex();
        probe.release();
        // Every single cut point, and every octet a read of its own.
        for (int at = 0; at <= total; at++) {
            FrameReader reader = new FrameReader(4097);
            long frames = 0;
            for (ByteBuf read : cut(stream(lengths), at)) {
                frames += reader.skip(read);
                assertThat(read.isReadable()).isFalse();
                read.release();
            }
            assertThat(frames).as("cut at %d", at).isEqualTo(lengths.length);
        }
        FrameReader reader = new FrameReader(4097);
        ByteBuf whole = stream(lengths);
        long frames = 0;
        while (whole.isReadable()) {
            frames += reader.skip(whole.readSlice(1));
        }
        whole.release();
        assertThat(frames).isEqualTo(lengths.length);
    }

    @Test
    void handsOnEveryBodyWholeAndInOrder() {
        Random random = new Random(18);
        int[] lengths = new int[200];
        for (int i = 0; i < lengths.length; i++) {
            // Mostly atomics' sizes, and now and then one large enough for the padded header.
            lengths[i] = i % 40 == 7 ? 4097 + random.nextInt(200) : random.nextInt(53);
        }
        ByteBuf whole = stream(lengths);
        int size = whole.writerIndex();
        int[] at = random.ints(300, 1, size).sorted().distinct().toArray();
        FrameReader reader = new FrameReader(4296);
        List<String> bodies = new ArrayList<>();
        try {
            for (ByteBuf read : cut(whole, at)) {
                reader.read(ALLOC, read, (buf, index, length) -> {
                    bodies.add(length + ":" + ByteBufUtil.hexDump(buf, index, length));
                    return true;
                });
                read.release();
            }
        } finally {
            reader.release();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < lengths.length; i++) {
            expected.add(lengths[i] + ":" + String.format("%02x", i & 0xFF).repeat(lengths[i]));
        }
        assertThat(bodies).isEqualTo(expected);
    }

    @Test
    void skipsTheAlignedHeadersPaddingWhereverAReadEnds() {
        // Cut in the length field, in the padding, at the body's first octet and in the body.
        for (int at : new int[] {2, 4, 5, 30, 63, 64, 65, 1000}) {
            FrameReader reader = new FrameReader(4097);
            List<String> bodies = new ArrayList<>();
            try {
                for (ByteBuf read : cut(stream(4097, 3), at)) {
                    reader.read(ALLOC, read, (buf, index, length) -> bodies.add(length + ":"
                            + ByteBufUtil.hexDump(buf, index, length).replace("00", "").replace("01", "x")));
                    read.release();
                }
            } finally {
                reader.release();
            }
            assertThat(bodies).as("cut at %d", at).containsExactly("4097:", "3:xxx");
        }
    }

    @Test
    void stopsWhereTheSinkSaysAndRejectsOversizedFrames() {
        ByteBuf in = stream(8, 8, 8);
        FrameReader reader = new FrameReader(8);
        List<Integer> seen = new ArrayList<>();
        try {
            reader.read(ALLOC, in, (buf, index, length) -> seen.add(length) && seen.size() < 2);
            assertThat(seen).hasSize(2);
            assertThat(in.readableBytes()).as("the third frame left unread").isEqualTo(12);
        } finally {
            reader.release();
            in.release();
        }
        ByteBuf big = stream(9);
        try {
            assertThatThrownBy(() -> new FrameReader(8).skip(big)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("a frame of 9 octets; at most 8 expected");
        } finally {
            big.release();
        }
    }
}
