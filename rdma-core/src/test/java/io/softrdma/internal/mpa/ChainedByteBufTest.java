package io.softrdma.internal.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chain the FPDU decoder cumulates reads in: every read of it agrees with the same octets in one buffer,
 * across every piece boundary, and it holds exactly one reference to each piece.
 */
class ChainedByteBufTest {
    /** Pieces of 7, 1, 12 and 5 octets (one of a single octet), each behind some already-read octets. */
    private static final int[] PIECES = {7, 1, 12, 5};

    private final List<ByteBuf> made = new ArrayList<>();

    @AfterEach
    void everyPieceReleased() {
        for (ByteBuf piece : made) {
            assertThat(piece.refCnt()).as("a piece's reference count after the chain and its ranges are released")
                    .isZero();
        }
    }

    /** The same octets as one heap buffer, 0, 1, 2, ... */
    private static ByteBuf expected() {
        int total = 0;
        for (int n : PIECES) {
            total += n;
        }
        ByteBuf all = Unpooled.buffer(total);
        for (int i = 0; i < total; i++) {
            all.writeByte(i * 7 + 3);
        }
        return all;
    }

    private ChainedByteBuf chain() {
        ChainedByteBuf chain = ChainedByteBuf.newInstance();
        int value = 0;
        for (int n : PIECES) {
            ByteBuf piece = PooledByteBufAllocator.DEFAULT.directBuffer(n + 3);
            piece.writeBytes(new byte[] {9, 9, 9}).skipBytes(3);
            for (int i = 0; i < n; i++) {
                piece.writeByte(value++ * 7 + 3);
            }
            made.add(piece);
            chain.append(piece);
        }
        return chain;
    }

    @Test
    void readsOfEveryWidthAgreeAcrossPieceBoundaries() {
        ChainedByteBuf chain = chain();
        ByteBuf all = expected();
        try {
            assertThat(chain.capacity()).isEqualTo(all.capacity());
            assertThat(chain.readableBytes()).isEqualTo(all.readableBytes());
            for (int i = 0; i < all.capacity(); i++) {
                assertThat(chain.getByte(i)).as("octet %d", i).isEqualTo(all.getByte(i));
                if (i + 2 <= all.capacity()) {
                    assertThat(chain.getShort(i)).as("short at %d", i).isEqualTo(all.getShort(i));
                    assertThat(chain.getShortLE(i)).as("short LE at %d", i).isEqualTo(all.getShortLE(i));
                }
                if (i + 3 <= all.capacity()) {
                    assertThat(chain.getUnsignedMedium(i)).isEqualTo(all.getUnsignedMedium(i));
                    assertThat(chain.getUnsignedMediumLE(i)).isEqualTo(all.getUnsignedMediumLE(i));
                }
                if (i + 4 <= all.capacity()) {
                    assertThat(chain.getInt(i)).as("int at %d", i).isEqualTo(all.getInt(i));
                    assertThat(chain.getIntLE(i)).isEqualTo(all.getIntLE(i));
                }
                if (i + 8 <= all.capacity()) {
                    assertThat(chain.getLong(i)).as("long at %d", i).isEqualTo(all.getLong(i));
                    assertThat(chain.getLongLE(i)).isEqualTo(all.getLongLE(i));
                }
            }
        } finally {
            chain.release();
        }
    }

    @Test
    void bulkReadsOfEveryRangeAgree() {
        ChainedByteBuf chain = chain();
        ByteBuf all = expected();
        try {
            for (int index = 0; index <= all.capacity(); index++) {
                for (int length = 0; index + length <= all.capacity(); length++) {
                    byte[] want = new byte[length];
                    all.getBytes(index, want);
                    byte[] array = new byte[length + 2];
                    chain.getBytes(index, array, 1, length);
                    assertThat(Arrays.copyOfRange(array, 1, length + 1)).isEqualTo(want);
                    ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(length);
                    ByteBuf copy = chain.copy(index, length);
                    try {
                        chain.getBytes(index, direct, 0, length);
                        assertThat(bytes(direct, length)).isEqualTo(want);
                        assertThat(bytes(copy, length)).isEqualTo(want);
                    } finally {
                        direct.release();
                        copy.release();
                    }
                    ByteBuffer nio = ByteBuffer.allocate(length + 1).limit(length);
                    chain.getBytes(index, nio);
                    assertThat(nio.position()).isEqualTo(length);
                    assertThat(nio.limit()).as("the destination's limit is left as it was").isEqualTo(length);
                    assertThat(Arrays.copyOf(nio.array(), length)).isEqualTo(want);
                }
            }
        } finally {
            chain.release();
        }
    }

    private static byte[] bytes(ByteBuf buf, int length) {
        byte[] out = new byte[length];
        buf.getBytes(0, out);
        return out;
    }

    @Test
    void streamsAndChannelsGetTheSameOctets(@TempDir Path dir)
            throws Exception {
        ChainedByteBuf chain = chain();
        ByteBuf all = expected();
        try {
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            chain.getBytes(3, stream, 20);
            assertThat(stream.toByteArray()).isEqualTo(bytes(all.slice(3, 20), 20));
            Path file = dir.resolve("octets");
            try (FileChannel channel = FileChannel.open(file,
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                assertThat(chain.getBytes(6, (GatheringByteChannel) channel, 10)).isEqualTo(10);
                assertThat(chain.getBytes(0, channel, 10L, 5)).isEqualTo(5);
            }
            byte[] want = new byte[15];
            all.getBytes(6, want, 0, 10);
            all.getBytes(0, want, 10, 5);
            assertThat(Files.readAllBytes(file)).isEqualTo(want);
            assertThat(chain.nioBuffers(0, chain.capacity())).hasSize(PIECES.length);
            assertThat(chain.nioBufferCount()).isEqualTo(PIECES.length);
        } finally {
            chain.release();
        }
    }

    @Test
    void aRangeWithinOnePieceIsThatPiecesSliceAndOneAcrossPiecesIsAChain() {
        ChainedByteBuf chain = chain();
        ByteBuf all = expected();
        ByteBuf within = chain.retainedSlice(9, 10);
        ByteBuf across = chain.retainedSlice(5, 12);
        chain.release();
        try {
            assertThat(within).isNotInstanceOf(ChainedByteBuf.class);
            assertThat(across).isInstanceOf(ChainedByteBuf.class);
            assertThat(((ChainedByteBuf) across).pieceCount()).isEqualTo(3);
            assertThat(ByteBuf.class.cast(within)).isEqualTo(all.slice(9, 10));
            assertThat(ByteBuf.class.cast(across)).isEqualTo(all.slice(5, 12));
            assertThat(made.get(0).refCnt()).as("the chain's own reference is gone, the range's is held").isOne();
            assertThat(made.get(3).refCnt()).as("a piece no range covers is released with the chain").isZero();
        } finally {
            within.release();
            across.release();
        }
    }

    @Test
    void discardingDropsOnlyPiecesReadToTheirEnd() {
        ChainedByteBuf chain = chain();
        ByteBuf all = expected();
        try {
            chain.readerIndex(9);
            chain.discardSomeReadBytes();
            assertThat(made.get(0).refCnt()).isZero();
            assertThat(made.get(1).refCnt()).isZero();
            assertThat(made.get(2).refCnt()).as("partly read: kept").isOne();
            assertThat(chain.pieceCount()).isEqualTo(2);
            assertThat(chain.readerIndex()).isEqualTo(1);
            assertThat(chain.capacity()).isEqualTo(all.capacity() - 8);
            assertThat(ByteBuf.class.cast(chain)).isEqualTo(all.slice(9, all.capacity() - 9));
            chain.readerIndex(chain.writerIndex());
            chain.discardSomeReadBytes();
            assertThat(chain.pieceCount()).as("the last piece stays, so that the chain has a place to read")
                    .isOne();
        } finally {
            chain.release();
        }
    }

    @Test
    void appendingAnEmptyBufferReleasesIt() {
        ChainedByteBuf chain = chain();
        ByteBuf empty = PooledByteBufAllocator.DEFAULT.directBuffer(4);
        made.add(empty);
        chain.append(empty);
        assertThat(chain.pieceCount()).isEqualTo(PIECES.length);
        chain.release();
    }

    @Test
    void receivedOctetsAreReadOnly() {
        ChainedByteBuf chain = chain();
        try {
            assertThat(chain.isReadOnly()).isTrue();
            assertThatThrownBy(() -> chain.setByte(0, 1)).isInstanceOf(ReadOnlyBufferException.class);
            assertThatThrownBy(() -> chain.setLong(8, 1)).isInstanceOf(ReadOnlyBufferException.class);
            assertThatThrownBy(() -> chain.setBytes(0, new byte[2])).isInstanceOf(ReadOnlyBufferException.class);
            assertThatThrownBy(() -> chain.writeByte(1)).isInstanceOf(ReadOnlyBufferException.class);
            assertThat(chain.hasArray()).isFalse();
            assertThat(chain.hasMemoryAddress()).isFalse();
        } finally {
            chain.release();
        }
    }

    @Test
    void aRecycledChainStartsEmpty() {
        chain().release();
        ChainedByteBuf next = ChainedByteBuf.newInstance();
        try {
            assertThat(next.refCnt()).isOne();
            assertThat(next.capacity()).isZero();
            assertThat(next.pieceCount()).isZero();
            assertThat(next.readerIndex()).isZero();
            assertThat(next.writerIndex()).isZero();
        } finally {
            next.release();
        }
    }
}
