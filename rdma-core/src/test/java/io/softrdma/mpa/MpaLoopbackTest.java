package io.softrdma.mpa;

import static io.softrdma.mpa.FpduTestSupport.pattern;
import static io.softrdma.testing.Hex.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.internal.mpa.FpduException;
import io.softrdma.internal.mpa.MpaRequestListener;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.mpa.MpaStartupException.Reason;
import io.softrdma.testing.Hex;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** MPA startup and full operation over real loopback TCP (RFC 5044 §7.1 and §4). */
class MpaLoopbackTest {
    /** RFC 5044's revision: these tests pin the frames of revision 1 (RFC 6581's are in EnhancedStartupTest). */
    private static final MpaSettings V1 = MpaSettings.defaults().withRevision(MpaSettings.REVISION_1);
    private static final String REQ_KEY = "4d504120494420526571204672616d65";
    private static final int[] SIZES = {0, 1, 100, 511, 512, 513, 4096, 20000, 64768};

    private static EventLoopGroup group;
    private static final RdmaTransport TRANSPORT = RdmaTransport.best();

    @BeforeAll
    static void startLoop() {
        group = TRANSPORT.newEventLoopGroup(2, r -> new Thread(r, "mpa-loopback-test"));
    }

    @AfterAll
    static void stopLoop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    static Stream<Arguments> flagCombinations() {
        List<Arguments> all = new ArrayList<>();
        for (int bits = 0; bits < 16; bits++) {
            all.add(Arguments.of((bits & 8) != 0, (bits & 4) != 0, (bits & 2) != 0, (bits & 1) != 0));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "initiator M={0} C={1}, responder M={2} C={3}")
    @MethodSource("flagCombinations")
    void rfc5044Section7_1EveryFlagCombinationNegotiatesAndCarriesUlpdusBothWays(boolean initiatorMarkers,
            boolean initiatorCrc, boolean responderMarkers, boolean responderCrc) throws Exception {
        Server server = Server.start(V1.withMarkers(responderMarkers).withCrc(responderCrc),
                MpaRequestListener.ACCEPT_ALL, true);
        Client client = Client.connect(server.port(),
                V1.withMarkers(initiatorMarkers).withCrc(initiatorCrc), new byte[0]);
        try {
            MpaNegotiation mine = client.outcome.get(5, TimeUnit.SECONDS);
            MpaNegotiation theirs = server.outcomes.poll(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
            boolean crc = initiatorCrc || responderCrc;
            assertThat(mine.crc()).isEqualTo(crc);
            assertThat(theirs.crc()).isEqualTo(crc);
            assertThat(mine.markersSent()).isEqualTo(responderMarkers);
            assertThat(theirs.markersReceived()).isEqualTo(responderMarkers);
            assertThat(mine.markersReceived()).isEqualTo(initiatorMarkers);
            assertThat(theirs.markersSent()).isEqualTo(initiatorMarkers);

            for (int i = 0; i < SIZES.length; i++) {
                client.channel.write(Unpooled.wrappedBuffer(pattern(SIZES[i], i)));
            }
            client.channel.flush();
            for (int i = 0; i < SIZES.length; i++) {
                byte[] echoed = client.received.poll(5, TimeUnit.SECONDS);
                assertThat(echoed).as("echo of ULPDU %d (%d octets)", i, SIZES[i]).isEqualTo(pattern(SIZES[i], i));
            }
        } finally {
            client.close();
            server.close();
        }
    }

    @Test
    void rfc5044Section7_1_2Rule2RejectCarriesPrivateDataToTheInitiatorAndCloses() throws Exception {
        Server server = Server.start(V1,
                (request, decision) -> decision.reject("go away".getBytes(StandardCharsets.US_ASCII)), false);
        Client client = Client.connect(server.port(), V1, bytes("0102"));
        try {
            Throwable t = cause(client.outcome);
            assertThat(t).isInstanceOf(MpaRejectedException.class);
            assertThat(new String(((MpaRejectedException) t).privateData(), StandardCharsets.US_ASCII))
                    .isEqualTo("go away");
            assertThat(((MpaStartupException) cause(server.outcomes.poll(5, TimeUnit.SECONDS))).reason())
                    .isEqualTo(Reason.REJECTED_LOCALLY);
            client.channel.closeFuture().await(5, TimeUnit.SECONDS);
            assertThat(client.channel.isOpen()).isFalse();
        } finally {
            client.close();
            server.close();
        }
    }

    @Test
    void consumerDecisionFromAnotherThreadHopsOntoTheEventLoop() throws Exception {
        ScheduledExecutorService other = Executors.newSingleThreadScheduledExecutor();
        Server server = Server.start(V1,
                (request, decision) -> other.schedule(() -> decision.accept(request.privateData()), 50,
                        TimeUnit.MILLISECONDS), true);
        Client client = Client.connect(server.port(), V1, bytes("abcdef"));
        try {
            assertThat(client.outcome.get(5, TimeUnit.SECONDS).peerPrivateData()).isEqualTo(bytes("abcdef"));
            assertThat(server.offLoop).as("server events that ran off the event loop").isEmpty();
            client.channel.writeAndFlush(Unpooled.wrappedBuffer(pattern(64768, 1)));
            assertThat(client.received.poll(5, TimeUnit.SECONDS)).isEqualTo(pattern(64768, 1));
        } finally {
            other.shutdownNow();
            client.close();
            server.close();
        }
    }

    @Test
    void rfc5044Section8AfterAFramingErrorTheStreamIsNotReadFurther() throws Exception {
        java.util.concurrent.atomic.AtomicLong octetsRead = new java.util.concurrent.atomic.AtomicLong();
        // Every read asked of the channel (by auto-read or by a handler) passes the first handler: after the
        // error, none may be asked for, or the channel reads on.
        java.util.concurrent.atomic.AtomicInteger readsAsked = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger readsAskedAtError = new java.util.concurrent.atomic.AtomicInteger(-1);
        java.util.concurrent.atomic.AtomicReference<Channel> accepted = new java.util.concurrent.atomic.AtomicReference<>();
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        Channel server = new ServerBootstrap().group(group).channel(TRANSPORT.serverSocketChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel c) {
                        accepted.set(c);
                        c.pipeline().addLast(new ChannelDuplexHandler() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                octetsRead.addAndGet(((ByteBuf) msg).readableBytes());
                                ctx.fireChannelRead(msg);
                            }

                            @Override
                            public void read(ChannelHandlerContext ctx) {
                                readsAsked.incrementAndGet();
                                ctx.read();
                            }
                        });
                        c.pipeline().addLast(PipelineNames.MPA_STARTUP,
                                MpaStartupHandler.responder(V1, MpaRequestListener.ACCEPT_ALL));
                        c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ((ByteBuf) msg).release();
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                readsAskedAtError.compareAndSet(-1, readsAsked.get());
                                errors.add(cause);
                            }
                        });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        try (Socket raw = connectRaw(port)) {
            raw.getOutputStream().write(bytes(REQ_KEY + "40010000"));
            raw.getInputStream().readNBytes(20);
            byte[] bad = FpduTestSupport.encode(true, false, List.of(bytes("0102")));
            bad[bad.length - 1] ^= 1;
            raw.getOutputStream().write(bad);
            assertThat(((FpduException) errors.poll(5, TimeUnit.SECONDS)).code()).isEqualTo(LlpErrorCode.CRC_ERROR);
            java.util.concurrent.atomic.AtomicLong octetsWritten = new java.util.concurrent.atomic.AtomicLong();
            Thread flood = new Thread(() -> {
                try {
                    OutputStream out = raw.getOutputStream();
                    byte[] junk = new byte[64 * 1024];
                    for (int i = 0; i < 256; i++) {
                        out.write(junk);
                        octetsWritten.addAndGet(junk.length);
                    }
                } catch (IOException e) {
                    // the socket closes at the end of the test
                }
            });
            flood.setDaemon(true);
            flood.start();
            // Octets are in the server's socket; two tasks through its event loop let it handle whatever
            // readiness that raised (an event loop handles I/O before the tasks queued meanwhile).
            await("the flood under way").atMost(Duration.ofSeconds(5)).until(() -> octetsWritten.get() > 0);
            Channel child = accepted.get();
            child.eventLoop().submit(() -> { }).get(5, TimeUnit.SECONDS);
            boolean autoRead = child.eventLoop().submit(() -> child.config().isAutoRead()).get(5, TimeUnit.SECONDS);
            assertThat(autoRead).as("auto-read after the error").isFalse();
            assertThat(readsAsked.get()).as("reads asked of the channel after the error (%d before)",
                    readsAskedAtError.get()).isEqualTo(readsAskedAtError.get());
            assertThat(octetsRead.get()).as("octets the server read, of 16 MiB sent after the error")
                    .isLessThan(1024 * 1024);
        } finally {
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void rfc5044Section7_1_2Rule8RequestTimeoutClosesASilentInitiator() throws Exception {
        Server server = Server.start(V1.withRequestTimeout(Duration.ofMillis(300)),
                MpaRequestListener.ACCEPT_ALL, true);
        try (Socket raw = connectRaw(server.port())) {
            assertThat(readAllUntilEof(raw.getInputStream())).isEmpty();
            assertReason(server, Reason.TIMEOUT);
        } finally {
            server.close();
        }
    }

    @Test
    void rfc5044Section7_1_1WrongKeyClosesTheConnectionAtOnce() throws Exception {
        Server server = Server.start(V1, MpaRequestListener.ACCEPT_ALL, true);
        try (Socket raw = connectRaw(server.port())) {
            raw.getOutputStream().write("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readAllUntilEof(raw.getInputStream())).isEmpty();
            assertReason(server, Reason.BAD_KEY);
        } finally {
            server.close();
        }
    }

    @Test
    void rfc5044Section7_1_1UnsupportedRevisionClosesWithoutAReply() throws Exception {
        Server server = Server.start(V1, MpaRequestListener.ACCEPT_ALL, true);
        try (Socket raw = connectRaw(server.port())) {
            raw.getOutputStream().write(bytes(REQ_KEY + "40070000"));
            assertThat(readAllUntilEof(raw.getInputStream())).isEmpty();
            assertReason(server, Reason.UNSUPPORTED_REVISION);
        } finally {
            server.close();
        }
    }

    @Test
    void rfc5044Section7_1_2Rule9PrivateDataAboveTheCapIsRefusedBeforeItArrives() throws Exception {
        Server server = Server.start(V1.withMaxPrivateDataLength(256),
                MpaRequestListener.ACCEPT_ALL, true);
        try (Socket raw = connectRaw(server.port())) {
            raw.getOutputStream().write(bytes(REQ_KEY + "4001012c")); // PD_Length 300
            assertThat(readAllUntilEof(raw.getInputStream())).isEmpty();
            assertReason(server, Reason.PRIVATE_DATA_TOO_LONG);
        } finally {
            server.close();
        }
    }

    @Test
    void truncatedRequestIsReportedWhenTheStreamEnds() throws Exception {
        Server server = Server.start(V1, MpaRequestListener.ACCEPT_ALL, true);
        try (Socket raw = connectRaw(server.port())) {
            raw.getOutputStream().write(bytes(REQ_KEY + "4001000a" + "0102"));
            raw.shutdownOutput();
            assertThat(readAllUntilEof(raw.getInputStream())).isEmpty();
            assertReason(server, Reason.TRUNCATED_FRAME);
        } finally {
            server.close();
        }
    }

    @Test
    void rfc5044Section7_1_2EarlyFpduOctetsInTheRequestSegmentAreNotLost() throws Exception {
        Server server = Server.start(V1, MpaRequestListener.ACCEPT_ALL, true);
        try (Socket raw = connectRaw(server.port())) {
            byte[] fpdus = FpduTestSupport.encode(true, false, List.of(bytes("0a0b"), pattern(3000, 7)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(bytes(REQ_KEY + "40010000"));
            out.write(fpdus);
            raw.getOutputStream().write(out.toByteArray()); // no wait for the Reply
            InputStream in = raw.getInputStream();
            byte[] reply = in.readNBytes(20);
            assertThat(Hex.hex(reply)).isEqualTo("4d504120494420526570204672616d65" + "40010000");
            byte[] echoed = in.readNBytes(fpdus.length);
            assertThat(FpduTestSupport.oracleParse(echoed, true, false))
                    .containsExactly(bytes("0a0b"), pattern(3000, 7));
        } finally {
            server.close();
        }
    }

    @Test
    void rfc5044Section7_1_2Rule10ReplyTimeoutClosesTheInitiator() throws Exception {
        try (ServerSocket silent = new ServerSocket()) {
            silent.bind(new InetSocketAddress("127.0.0.1", 0));
            Client client = Client.connect(silent.getLocalPort(),
                    V1.withReplyTimeout(Duration.ofMillis(300)), new byte[0]);
            try (Socket accepted = silent.accept()) {
                assertThat(Hex.hex(accepted.getInputStream().readNBytes(20))).startsWith(REQ_KEY);
                Throwable t = cause(client.outcome);
                assertThat(((MpaStartupException) t).reason()).isEqualTo(Reason.TIMEOUT);
                assertThat(readAllUntilEof(accepted.getInputStream())).isEmpty();
            } finally {
                client.close();
            }
        }
    }

    @Test
    void initiatorSeesClearErrorWhenTheResponderRefusesMarkers() throws Exception {
        Server server = Server.start(V1.withRefuseMarkers(true), MpaRequestListener.ACCEPT_ALL,
                true);
        Client client = Client.connect(server.port(), V1.withMarkers(true), new byte[0]);
        try {
            assertThat(cause(client.outcome)).isInstanceOf(MpaRejectedException.class);
            assertReason(server, Reason.MARKERS_REFUSED);
        } finally {
            client.close();
            server.close();
        }
    }

    // ---- helpers ----

    private static void assertReason(Server server, Reason reason) throws Exception {
        Throwable t = cause(server.outcomes.poll(5, TimeUnit.SECONDS));
        assertThat(t).isInstanceOf(MpaStartupException.class);
        assertThat(((MpaStartupException) t).reason()).isEqualTo(reason);
    }

    private static Throwable cause(CompletableFuture<MpaNegotiation> f) throws Exception {
        assertThat(f).as("startup outcome").isNotNull();
        try {
            f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("startup succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static Socket connectRaw(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        s.setSoTimeout(5000);
        return s;
    }

    private static byte[] readAllUntilEof(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    /** A responder that echoes every ULPDU it receives, and notes any event that ran off its event loop. */
    record Server(Channel channel, BlockingQueue<CompletableFuture<MpaNegotiation>> outcomes,
            List<String> offLoop) {
        static Server start(MpaSettings settings, MpaRequestListener listener, boolean echo) {
            BlockingQueue<CompletableFuture<MpaNegotiation>> outcomes = new LinkedBlockingQueue<>();
            List<String> offLoop = java.util.Collections.synchronizedList(new ArrayList<>());
            Channel ch = new ServerBootstrap().group(group).channel(TRANSPORT.serverSocketChannel())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            MpaStartupHandler h = MpaStartupHandler.responder(settings, listener);
                            outcomes.add(h.outcome());
                            c.pipeline().addLast(PipelineNames.MPA_STARTUP, h);
                            c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                                    if (!ctx.executor().inEventLoop()) {
                                        offLoop.add("established event");
                                    }
                                }

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    if (!ctx.executor().inEventLoop()) {
                                        offLoop.add("channelRead");
                                    }
                                    if (echo) {
                                        ctx.writeAndFlush(msg);
                                    } else {
                                        ((ByteBuf) msg).release();
                                    }
                                }
                            });
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
            return new Server(ch, outcomes, offLoop);
        }

        int port() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }

        void close() {
            channel.close().syncUninterruptibly();
        }
    }

    /** An initiator that queues every ULPDU it receives. */
    record Client(Channel channel, CompletableFuture<MpaNegotiation> outcome, BlockingQueue<byte[]> received) {
        static Client connect(int port, MpaSettings settings, byte[] privateData) {
            BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
            MpaStartupHandler h = MpaStartupHandler.initiator(settings, privateData);
            Channel ch = new Bootstrap().group(group).channel(TRANSPORT.socketChannel())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline().addLast(PipelineNames.MPA_STARTUP, h);
                            c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    received.add(Hex.releaseToBytes((ByteBuf) msg));
                                }
                            });
                        }
                    }).connect(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
            return new Client(ch, h.outcome(), received);
        }

        void close() {
            channel.close().syncUninterruptibly();
        }
    }
}
