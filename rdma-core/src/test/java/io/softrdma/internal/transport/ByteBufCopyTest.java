package io.softrdma.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ByteBufCopy} copies exactly what Netty's own methods copy, for the kinds of buffer the stack meets
 * (pooled and unpooled direct, heap, slices of them, composites), and fails on a bad range as they do. On Java 17
 * to 24 (Netty with {@code sun.misc.Unsafe}) it is Netty's own copy; the CI's Java 25 run covers the copies
 * without it.
 */
class ByteBufCopyTest {
    private static final int CAPACITY = 300;

    static Stream<Arguments> buffers() {
        return Stream.of(
                Arguments.of("pooled direct",
                        (IntFunction<ByteBuf>) n -> PooledByteBufAllocator.DEFAULT.directBuffer(n, n)),
                Arguments.of("slice of pooled direct", (IntFunction<ByteBuf>) ByteBufCopyTest::pooledSlice),
                Arguments.of("unpooled direct", (IntFunction<ByteBuf>) n -> Unpooled.directBuffer(n, n)),
                Arguments.of("heap", (IntFunction<ByteBuf>) n -> Unpooled.buffer(n, n)),
                Arguments.of("composite", (IntFunction<ByteBuf>) ByteBufCopyTest::composite));
    }

    private static ByteBuf pooledSlice(int n) {
        ByteBuf parent = PooledByteBufAllocator.DEFAULT.directBuffer(n + 24, n + 24);
        ByteBuf slice = parent.retainedSlice(11, n);
        parent.release();
        return slice;
    }

    private static ByteBuf composite(int n) {
        CompositeByteBuf c = Unpooled.compositeBuffer();
        c.addComponent(true, Unpooled.directBuffer(n / 3, n / 3).writeZero(n / 3));
        c.addComponent(true, Unpooled.directBuffer(n - n / 3, n - n / 3).writeZero(n - n / 3));
        return c;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("buffers")
    void getBytesCopiesTheRangeIntoTheArray(String kind, IntFunction<ByteBuf> make) {
        ByteBuf src = filled(make.apply(CAPACITY), 7);
        try {
            for (int[] range : new int[][] {{0, 64}, {3, 61}, {13, 8}, {CAPACITY - 7, 7}, {5, 0}, {0, CAPACITY}}) {
                byte[] actual = new byte[CAPACITY + 4];
                byte[] expected = new byte[CAPACITY + 4];
                ByteBufCopy.getBytes(src, range[0], actual, 2, range[1]);
                src.getBytes(range[0], expected, 2, range[1]);
                assertThat(actual).as("octets %d+%d", range[0], range[1]).isEqualTo(expected);
            }
            assertThatThrownBy(() -> ByteBufCopy.getBytes(src, CAPACITY - 3, new byte[8], 0, 8))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> ByteBufCopy.getBytes(src, 0, new byte[8], 4, 8))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            src.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("buffers")
    void placeWritesTheSourceRangeAtTheIndexAndNothingElse(String kind, IntFunction<ByteBuf> make) {
        ByteBuf src = filled(make.apply(CAPACITY), 1);
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(CAPACITY, CAPACITY).writeZero(CAPACITY);
        ByteBuffer dstView = dst.nioBuffer(0, CAPACITY);
        try {
            ByteBufCopy.place(src, 9, dst, dstView, 100, 150);
            byte[] expected = new byte[CAPACITY];
            src.getBytes(9, expected, 100, 150);
            assertThat(ByteBufUtil.getBytes(dst, 0, CAPACITY)).isEqualTo(expected);
            assertThat(src.readerIndex()).isZero();
            assertThat(src.writerIndex()).isEqualTo(CAPACITY);
            assertThatThrownBy(() -> ByteBufCopy.place(src, 0, dst, dstView, CAPACITY - 10, 11))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> ByteBufCopy.place(src, CAPACITY - 10, dst, dstView, 0, 11))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            src.release();
            dst.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("buffers")
    void appendWritesTheSourceRangeAtTheWriterIndex(String kind, IntFunction<ByteBuf> make) {
        ByteBuf src = filled(PooledByteBufAllocator.DEFAULT.directBuffer(CAPACITY, CAPACITY), 3);
        ByteBuffer srcView = src.nioBuffer(0, CAPACITY);
        ByteBuf dst = make.apply(CAPACITY);
        try {
            dst.writerIndex(20);
            ByteBufCopy.append(src, srcView, 40, dst, 200);
            assertThat(dst.writerIndex()).isEqualTo(220);
            assertThat(ByteBufUtil.getBytes(dst, 20, 200)).isEqualTo(ByteBufUtil.getBytes(src, 40, 200));
            assertThatThrownBy(() -> ByteBufCopy.append(src, srcView, CAPACITY - 10, dst, 11))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            src.release();
            dst.release();
        }
    }

    /** The views are only used with absolute operations: a shared region's view keeps its position and limit. */
    @Test
    void sharedViewsKeepTheirPositionAndLimit() {
        ByteBuf region = filled(PooledByteBufAllocator.DEFAULT.directBuffer(CAPACITY, CAPACITY), 5);
        ByteBuffer view = region.nioBuffer(0, CAPACITY);
        ByteBuf received = filled(PooledByteBufAllocator.DEFAULT.directBuffer(64, 64), 9);
        ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
        try {
            ByteBufCopy.place(received, 0, region, view, 17, 64);
            ByteBufCopy.append(region, view, 17, out, 64);
            assertThat(view.position()).isZero();
            assertThat(view.limit()).isEqualTo(CAPACITY);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(ByteBufUtil.getBytes(received));
        } finally {
            region.release();
            received.release();
            out.release();
        }
    }

    private static ByteBuf filled(ByteBuf buf, int seed) {
        buf.clear();
        for (int i = 0; i < buf.capacity(); i++) {
            buf.writeByte(i * 31 + seed);
        }
        return buf;
    }
}
