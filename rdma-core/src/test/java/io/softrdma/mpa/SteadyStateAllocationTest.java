package io.softrdma.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduEncoder;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * No allocation per message on the hot path: after warm-up, framing and deframing an FPDU (without
 * Markers) allocate no heap memory on an event-loop thread with the pooled allocator SoftRDMA uses.
 *
 * <p>Measured with the JVM's per-thread allocation counter, with leak tracking paused (at PARANOID
 * level it records every access, which is itself allocation).
 */
class SteadyStateAllocationTest {
    private static final int WARMUP = 50_000;
    private static final int MEASURED = 20_000;

    @Test
    void encodingAnFpduAllocatesNothing() throws Exception {
        double perFpdu = onEventLoopThread(() -> {
            EmbeddedChannel ch = channel(new ReleaseWrites(), new FpduEncoder(true, false, false));
            ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(1024).writeZero(1024);
            try {
                return allocatedPerOperation(() -> ch.writeAndFlush(payload.retainedSlice(), ch.voidPromise()));
            } finally {
                payload.release();
                ch.finishAndReleaseAll();
            }
        });
        assertThat(perFpdu).as("heap octets allocated per FPDU encoded").isLessThan(1.0);
    }

    @Test
    void decodingAnFpduAllocatesNothing() throws Exception {
        double perFpdu = onEventLoopThread(() -> {
            byte[] wire = FpduTestSupport.encode(true, false, java.util.List.of(FpduTestSupport.pattern(1024, 1)));
            ByteBuf read = PooledByteBufAllocator.DEFAULT.directBuffer(wire.length).writeBytes(wire);
            EmbeddedChannel ch = channel(new FpduDecoder(true, false), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ((ByteBuf) msg).release();
                }
            });
            try {
                return allocatedPerOperation(() -> ch.pipeline().fireChannelRead(read.retainedSlice()));
            } finally {
                read.release();
                ch.finishAndReleaseAll();
            }
        });
        assertThat(perFpdu).as("heap octets allocated per FPDU decoded").isLessThan(1.0);
    }

    /**
     * Two FPDUs of 1,500 octets cut into three reads, each FPDU across two of them: the decoder chains the reads
     * (issue 18: Netty's composite cumulation allocated a component, slices and the composite itself).
     */
    @Test
    void decodingFpdusAcrossReadsAllocatesNothing() throws Exception {
        long[] delivered = {0};
        double perFpdu = onEventLoopThread(() -> {
            byte[] wire = FpduTestSupport.encode(true, false, java.util.List.of(FpduTestSupport.pattern(1500, 1),
                    FpduTestSupport.pattern(1500, 2)));
            ByteBuf stream = PooledByteBufAllocator.DEFAULT.directBuffer(wire.length).writeBytes(wire);
            int[] cuts = {0, 700, 2300, wire.length};
            EmbeddedChannel ch = channel(new FpduDecoder(true, false), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    delivered[0]++;
                    ((ByteBuf) msg).release();
                }
            });
            try {
                return allocatedPerOperation(() -> {
                    for (int i = 0; i + 1 < cuts.length; i++) {
                        ch.pipeline().fireChannelRead(stream.retainedSlice(cuts[i], cuts[i + 1] - cuts[i]));
                        ch.pipeline().fireChannelReadComplete();
                    }
                }) / 2;
            } finally {
                stream.release();
                ch.finishAndReleaseAll();
            }
        });
        assertThat(delivered[0]).as("FPDUs delivered").isEqualTo(2L * (WARMUP + MEASURED));
        assertThat(perFpdu).as("heap octets allocated per FPDU decoded across two reads").isLessThan(1.0);
    }

    private static EmbeddedChannel channel(io.netty.channel.ChannelHandler... handlers) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(PooledByteBufAllocator.DEFAULT);
        ch.pipeline().addLast(handlers);
        return ch;
    }

    private static double allocatedPerOperation(Runnable op) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        for (int i = 0; i < WARMUP; i++) {
            op.run();
        }
        long before = mx.getThreadAllocatedBytes(thread);
        for (int i = 0; i < MEASURED; i++) {
            op.run();
        }
        return (double) (mx.getThreadAllocatedBytes(thread) - before) / MEASURED;
    }

    private interface Measurement {
        double run() throws Exception;
    }

    /**
     * Event loops run on FastThreadLocalThreads, where Netty's thread-local caches and recyclers work.
     * Leak tracking is paused for the whole measurement, buffers' creation included: a tracked buffer
     * records every access.
     */
    private static double onEventLoopThread(Measurement m) throws Exception {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            return runOnFastThread(m);
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    private static double runOnFastThread(Measurement m) throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = new FastThreadLocalThread(() -> {
            try {
                result.set(m.run());
            } catch (Throwable e) {
                result.set(e);
            }
        });
        t.start();
        t.join();
        if (result.get() instanceof Throwable e) {
            throw new AssertionError(e);
        }
        return (Double) result.get();
    }

    /** Releases what the encoder writes, as a completed socket write does. */
    private static final class ReleaseWrites extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ((ByteBuf) msg).release();
            promise.trySuccess();
        }
    }
}
