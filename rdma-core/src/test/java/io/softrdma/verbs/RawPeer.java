package io.softrdma.verbs;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.testing.Hex;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test peer that speaks real MPA (startup, FPDU framing) and sends whatever ULPDUs the test writes,
 * byte for byte, and records the ULPDUs it receives: the way to provoke each Terminate and check the
 * exact bytes that come back.
 */
final class RawPeer implements AutoCloseable {
    final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    final CountDownLatch closed = new CountDownLatch(1);
    /** What this peer's pipeline caught, its MPA decoder's framing errors among them (a CRC that fails, §8). */
    final BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
    Channel channel;
    MpaNegotiation negotiation;

    static RawPeer connect(EventLoopGroup group, int port, MpaSettings settings) throws Exception {
        return connect(group, port, settings, new byte[0]);
    }

    /** As {@link #connect(EventLoopGroup, int, MpaSettings)}, with this private data in the MPA Request. */
    static RawPeer connect(EventLoopGroup group, int port, MpaSettings settings, byte[] privateData) throws Exception {
        RawPeer peer = new RawPeer();
        MpaStartupHandler startup = MpaStartupHandler.initiator(settings, privateData);
        peer.channel = new Bootstrap().group(group).channel(RdmaTransport.best().socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel c) {
                        c.pipeline().addLast(PipelineNames.MPA_STARTUP, startup);
                        c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                peer.received.add(Hex.releaseToBytes((ByteBuf) msg));
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                peer.closed.countDown();
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                // the peer under test closes the connection after its Terminate; kept for tests
                                peer.errors.add(cause);
                            }
                        });
                    }
                }).connect(new InetSocketAddress("127.0.0.1", port)).sync().channel();
        peer.negotiation = startup.outcome().get(5, TimeUnit.SECONDS);
        return peer;
    }

    /** Sends one ULPDU (framed by MPA as an FPDU). */
    void send(String ulpduHex) {
        channel.writeAndFlush(Unpooled.wrappedBuffer(Hex.bytes(ulpduHex))).syncUninterruptibly();
    }

    /** Writes raw octets below the FPDU encoder (to send a broken FPDU). */
    void sendRaw(byte[] octets) {
        channel.pipeline().context(PipelineNames.FPDU_ENCODER).writeAndFlush(Unpooled.wrappedBuffer(octets))
                .syncUninterruptibly();
    }

    /**
     * Sends one ULPDU framed as an FPDU, an octet per TCP write: the queue pair under test receives it across as
     * many reads as the network makes of that (a chain of reads in its decoder).
     */
    void sendAnOctetAtATime(String ulpduHex) {
        channel.pipeline().addBefore(PipelineNames.FPDU_ENCODER, "octet-at-a-time", new OctetAtATime());
        try {
            send(ulpduHex);
        } finally {
            // Gone already if the queue pair under test answered with a Terminate and closed the stream (a closed
            // channel's pipeline drops its handlers, on its event loop): checked and removed there.
            channel.eventLoop().submit(() -> {
                if (channel.pipeline().get("octet-at-a-time") != null) {
                    channel.pipeline().remove("octet-at-a-time");
                }
            }).syncUninterruptibly();
        }
    }

    /** Below the FPDU encoder: writes and flushes each octet of what it encoded on its own. */
    private static final class OctetAtATime extends io.netty.channel.ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
            ByteBuf framed = (ByteBuf) msg;
            try {
                int last = framed.writerIndex() - 1;
                for (int i = framed.readerIndex(); i <= last; i++) {
                    ctx.writeAndFlush(framed.retainedSlice(i, 1), i == last ? promise : ctx.voidPromise());
                }
            } finally {
                framed.release();
            }
        }
    }

    /** The next ULPDU received, in hex, or a failure after 5 s. */
    String next() throws InterruptedException {
        byte[] u = received.poll(5, TimeUnit.SECONDS);
        if (u == null) {
            throw new AssertionError("no ULPDU within 5 s");
        }
        return Hex.hex(u);
    }

    /**
     * Sends ULPDUs back to back: each is framed as one FPDU, and they are flushed together, so that the
     * queue pair under test may find them in one read.
     */
    void sendAll(byte[]... ulpdus) {
        io.netty.channel.ChannelFuture last = null;
        for (byte[] u : ulpdus) {
            last = channel.write(Unpooled.wrappedBuffer(u));
        }
        channel.flush();
        if (last != null) {
            last.syncUninterruptibly();
        }
    }

    /** The next ULPDU received, or a failure after {@code seconds}. */
    byte[] nextUlpdu(int seconds) throws InterruptedException {
        byte[] u = received.poll(seconds, TimeUnit.SECONDS);
        if (u == null) {
            throw new AssertionError("no ULPDU within " + seconds + " s");
        }
        return u;
    }

    /**
     * The queue pair under test sent exactly {@code expectedUlpdu} (its Terminate), the stream closed, and the
     * queue pair ended in ERROR with that Terminate, sent by itself, of code {@code codeName}.
     */
    void expectTerminate(QueuePair qp, String expectedUlpdu, String codeName) throws Exception {
        org.assertj.core.api.Assertions.assertThat(next()).isEqualTo(expectedUlpdu);
        org.assertj.core.api.Assertions.assertThat(awaitClose()).as("the stream closes after the Terminate").isTrue();
        Throwable t;
        try {
            qp.closeFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError("the queue pair closed normally");
        } catch (java.util.concurrent.ExecutionException e) {
            t = e.getCause();
        }
        org.assertj.core.api.Assertions.assertThat(t).isInstanceOf(io.softrdma.rdmap.TerminateException.class);
        io.softrdma.rdmap.TerminateException terminate = (io.softrdma.rdmap.TerminateException) t;
        org.assertj.core.api.Assertions.assertThat(terminate.remote()).isFalse();
        org.assertj.core.api.Assertions.assertThat(terminate.code().name()).isEqualTo(codeName);
        org.assertj.core.api.Assertions.assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
    }

    /** Stops reading from the socket, so that TCP backs up towards the queue pair under test. */
    void pauseReading() {
        channel.config().setAutoRead(false);
    }

    /** Reads from the socket again. */
    void resumeReading() {
        channel.config().setAutoRead(true);
    }

    boolean awaitClose() throws InterruptedException {
        return closed.await(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    // ---- ULPDU builders (hex) ----

    static String tagged(int opcode, boolean last, int stag, long to) {
        return String.format("%02x%02x%08x%016x", 0x80 | (last ? 0x40 : 0) | 1, 0x40 | opcode, stag, to);
    }

    static String untagged(int opcode, boolean last, int invalidateStag, int qn, int msn, int mo) {
        return String.format("%02x%02x%08x%08x%08x%08x", (last ? 0x40 : 0) | 1, 0x40 | opcode, invalidateStag, qn, msn,
                mo);
    }

    static String readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return untagged(1, true, 0, 1, msn, 0)
                + String.format("%08x%016x%08x%08x%016x", sinkStag, sinkTo, size, sourceStag, sourceTo);
    }

    /**
     * The Terminate this stack sends: untagged DDP header on QN 2 with MSN 1, then the RFC 5040 §4.8
     * header — control, and with M/D the segment length and the offending DDP header, with R the
     * Read Request header.
     */
    static String terminate(int layer, int etype, int code, String ddpHeader, int segmentLength, String rdmaHeader) {
        int flags = (ddpHeader.isEmpty() ? 0 : 0xC0) | (rdmaHeader.isEmpty() ? 0 : 0x20);
        return untagged(7, true, 0, 2, 1, 0) + String.format("%02x%02x%02x00", layer << 4 | etype, code, flags)
                + (ddpHeader.isEmpty() ? "" : String.format("%04x", segmentLength) + ddpHeader) + rdmaHeader;
    }
}
