package io.softrdma.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.internal.mpa.Crc32c;
import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduEncoder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * MPA framing cost (RFC 5044 §4) through the real handlers, next to what it is compared with: a
 * plain memory copy of the same octets, and one bare CRC32c pass over them.
 *
 * <ul>
 *   <li>{@code encode}: one ULPDU through {@link FpduEncoder} (length, PAD, CRC32c or not, Markers or
 *       not); the buffers it writes are released by the next handler, as a socket write would.
 *   <li>{@code decode}: one FPDU, received as one contiguous read (as the socket delivers it),
 *       through {@link FpduDecoder} (find, check CRC32c and Markers, slice); the ULPDU is released.
 * </ul>
 * Framing cost = encode + decode. Channels use Netty's pooled allocator, as SoftRDMA's do. Sizes: 64 octets, 1 KiB, and 64768 octets, the largest ULPDU RFC
 * 5044 §3 lets a sender post (a 64 KiB message is two ULPDUs).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled",
        // JMH's threads are not event-loop threads; give them the allocator caches event loops have.
        "-Dio.netty.allocator.useCacheForAllThreads=true"})
public class FpduCodecBenchmark {

    @Param({"64", "1024", "64768"})
    int size;

    @Param({"false", "true"})
    boolean markers;

    @Param({"true", "false"})
    boolean crc;

    private ByteBuf payload;
    private ByteBuf copyTarget;
    private EmbeddedChannel encoder;
    private EmbeddedChannel decoder;
    /** Contiguous FPDUs fed to the decoder in a cycle that keeps its Marker positions right. */
    private ByteBuf[] reads;
    private int next;
    private EmbeddedChannel encodeHarness;
    private EmbeddedChannel decodeHarness;
    private final Crc32c crc32c = new Crc32c();
    private long delivered;

    @Setup(Level.Trial)
    public void setUp() {
        payload = PooledByteBufAllocator.DEFAULT.directBuffer(size);
        for (int i = 0; i < size; i++) {
            payload.writeByte(i * 31 + 7);
        }
        copyTarget = PooledByteBufAllocator.DEFAULT.directBuffer(size);
        encoder = channel(new Discard(), new FpduEncoder(crc, markers, false));
        reads = encodeCycle();
        decoder = channel(new FpduDecoder(crc, markers), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf ulpdu = (ByteBuf) msg;
                delivered += ulpdu.readableBytes();
                ulpdu.release();
            }
        });
        encodeHarness = channel(new Discard(), new ChannelOutboundHandlerAdapter());
        decodeHarness = channel(new ChannelInboundHandlerAdapter(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf ulpdu = (ByteBuf) msg;
                delivered += ulpdu.readableBytes();
                ulpdu.release();
            }
        });
        // Feed the FPDUs before the cycle once, so the decoder's stream position matches the cycle's.
        for (ByteBuf prefix : prefixReads) {
            decoder.pipeline().fireChannelRead(prefix);
        }
    }

    private List<ByteBuf> prefixReads = new ArrayList<>();

    private static EmbeddedChannel channel(io.netty.channel.ChannelHandler... handlers) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(PooledByteBufAllocator.DEFAULT);
        ch.pipeline().addLast(handlers);
        return ch;
    }

    /**
     * Encodes FPDUs until the stream offset (mod 512) at an FPDU boundary repeats: the FPDUs between
     * the two occurrences form a cycle the decoder can be fed forever. Without Markers the cycle is
     * one FPDU.
     */
    private ByteBuf[] encodeCycle() {
        EmbeddedChannel ch = channel(new FpduEncoder(crc, markers, false));
        List<ByteBuf> fpdus = new ArrayList<>();
        List<Long> residues = new ArrayList<>();
        long position = 0;
        while (true) {
            long residue = markers ? position % FpduCodec.MARKER_INTERVAL : 0;
            int seen = residues.indexOf(residue);
            if (seen >= 0) {
                prefixReads = fpdus.subList(0, seen);
                ch.finishAndReleaseAll();
                return fpdus.subList(seen, fpdus.size()).toArray(new ByteBuf[0]);
            }
            residues.add(residue);
            ch.writeOutbound(payload.retainedDuplicate());
            CompositeByteBuf wire = Unpooled.compositeBuffer();
            for (Object o; (o = ch.readOutbound()) != null; ) {
                wire.addComponent(true, (ByteBuf) o);
            }
            ByteBuf contiguous = PooledByteBufAllocator.DEFAULT.directBuffer(wire.readableBytes());
            contiguous.writeBytes(wire);
            wire.release();
            position += contiguous.readableBytes();
            fpdus.add(contiguous);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
        encodeHarness.finishAndReleaseAll();
        decodeHarness.finishAndReleaseAll();
        for (ByteBuf r : reads) {
            r.release();
        }
        payload.release();
        copyTarget.release();
    }

    /** Frame one ULPDU: length field, PAD, CRC32c (if on), Markers (if on); the payload is not copied. */
    @Benchmark
    public void encode() {
        encoder.writeAndFlush(payload.retainedDuplicate(), encoder.voidPromise());
    }

    /** Deframe one FPDU from a contiguous read: find it, check CRC32c and Markers, slice out the ULPDU. */
    @Benchmark
    public long decode() {
        ByteBuf read = reads[next];
        next = next + 1 == reads.length ? 0 : next + 1;
        decoder.pipeline().fireChannelRead(read.retainedDuplicate());
        return delivered;
    }

    /** {@link #encode}'s plumbing alone: the same write through a pass-through handler instead of the encoder. */
    @Benchmark
    public void encodeHarness() {
        encodeHarness.writeAndFlush(payload.retainedDuplicate(), encodeHarness.voidPromise());
    }

    /** {@link #decode}'s plumbing alone: the same read through a pass-through handler instead of the decoder. */
    @Benchmark
    public long decodeHarness() {
        ByteBuf read = reads[next];
        next = next + 1 == reads.length ? 0 : next + 1;
        decodeHarness.pipeline().fireChannelRead(read.retainedDuplicate());
        return delivered;
    }

    /** The reference: copy the same octets once, direct buffer to direct buffer. */
    @Benchmark
    public ByteBuf memoryCopy() {
        return copyTarget.setBytes(0, payload, 0, size);
    }

    /** One CRC32c pass over the same octets (framing with CRC makes two: generate and check). */
    @Benchmark
    public long crc32cPass() {
        return crc32c.reset().update(payload, 0, size).value();
    }

    /** Releases what the encoder writes, as a completed socket write does. */
    private static final class Discard extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ((ByteBuf) msg).release();
            promise.trySuccess();
        }
    }
}
