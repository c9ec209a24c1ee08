package io.softrdma.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The Java requester against the Java responder over loopback: inline calls and replies, a Long Call through a Read
 * chunk, a bulk result through a Write chunk with and without remote invalidation, typed RPC and RDMA errors, and
 * the credit grant bounding the calls outstanding.
 */
class RpcRdmaEndToEndTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int PROGRAM = 0x2000_0001;
    private static final int NULL = 0;
    private static final int ECHO = 1;
    private static final int READ = 2;
    private static final int SUM = 3;
    private static final int BIG = 4;
    private static final int FAIL = 5;

    private final AtomicInteger inProgress = new AtomicInteger();
    private final AtomicInteger mostInProgress = new AtomicInteger();
    private RpcRdmaServer.Bound server;
    private RpcRdmaConnection client;

    /** A test program: NULL, ECHO(opaque), READ(offset, count) of a pattern, SUM(opaque), BIG(n), FAIL. */
    private Mono<RpcResult> serve(RpcCallHeader call, ByteBuf args) {
        if (call.version() != 1) {
            return Mono.just(RpcResult.programMismatch(1, 1));
        }
        return switch (call.procedure()) {
            case NULL -> Mono.just(RpcResult.success(Unpooled.EMPTY_BUFFER));
            case ECHO -> {
                byte[] data = Xdr.readOpaque(args, 1 << 20, "echo");
                ByteBuf out = Unpooled.buffer();
                Xdr.writeOpaque(out, data);
                yield Mono.just(RpcResult.success(out));
            }
            case READ -> {
                int offset = args.readInt();
                int count = args.readInt();
                ByteBuf data = Unpooled.buffer(count);
                for (int i = 0; i < count; i++) {
                    data.writeByte((offset + i) * 7 % 251);
                }
                yield Mono.just(RpcResult.success(Unpooled.buffer(4).writeInt(count), data));
            }
            case SUM -> {
                byte[] data = Xdr.readOpaque(args, 1 << 20, "sum");
                long sum = 0;
                for (byte b : data) {
                    sum += b & 0xFF;
                }
                yield Mono.just(RpcResult.success(Unpooled.buffer(12).writeLong(sum).writeInt(data.length)));
            }
            case BIG -> Mono.just(RpcResult.success(Unpooled.buffer().writeZero(args.readInt())));
            case FAIL -> Mono.error(new IllegalStateException("the handler failed"));
            case 8 -> Mono.never(); // a handler that never answers
            case 9 -> {
                int now = inProgress.incrementAndGet();
                mostInProgress.accumulateAndGet(now, Math::max);
                yield Mono.delay(Duration.ofMillis(10)).map(t -> {
                    inProgress.decrementAndGet();
                    return RpcResult.success(Unpooled.EMPTY_BUFFER);
                });
            }
            default -> Mono.just(RpcResult.error(RpcReplyHeader.AcceptStat.PROC_UNAVAIL));
        };
    }

    private void start(RpcRdmaServer s, RpcRdmaClient c) {
        server = s.host("127.0.0.1").port(0).handler(this::serve).bind();
        client = c.host("127.0.0.1").port(server.port()).connect().block(TIMEOUT);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null) {
            client.dispose();
            client.onDispose().block(TIMEOUT);
        }
        if (server != null) {
            server.dispose();
        }
    }

    private static ByteBuf opaque(byte[] data) {
        ByteBuf b = Unpooled.buffer();
        Xdr.writeOpaque(b, data);
        return b;
    }

    @Test
    void rfc8166InlineCallsAndRepliesWithTheRfc8797Thresholds() {
        start(RpcRdmaServer.create().inlineSizes(8192, 4096), RpcRdmaClient.create().inlineSizes(2048, 16384));
        // RFC 8797 §4.2: each way, the smaller of the sender's send size and the receiver's receive size.
        assertThat(client.parameters().sendInlineThreshold()).isEqualTo(2048);
        assertThat(client.parameters().receiveInlineThreshold()).isEqualTo(8192);
        RpcReply none = client.call(PROGRAM, 1, NULL, Unpooled.EMPTY_BUFFER).block(TIMEOUT);
        assertThat(none.results().readableBytes()).isZero();
        assertThat(none.writeChunkOctets()).isZero();
        none.release();
        RpcReply echo = client.call(PROGRAM, 1, ECHO, opaque("hello, svcrdma".getBytes())).block(TIMEOUT);
        assertThat(new String(Xdr.readOpaque(echo.results(), 100, "echo"))).isEqualTo("hello, svcrdma");
        echo.release();
        // RFC 8166 §3.3.1: the grant of the last reply (64), clamped to the 32 receives this side posted.
        assertThat(client.creditsGranted()).isEqualTo(64);
        assertThat(client.creditLimit()).isEqualTo(32);
    }

    @Test
    void rfc8166Section3_5_3ACallAboveTheInlineThresholdGoesAsALongCallInAReadChunk() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create().inlineSizes(1024, 1024));
        byte[] data = new byte[50_001];
        long expected = 0;
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 13);
            expected += data[i] & 0xFF;
        }
        RpcReply reply = client.call(PROGRAM, 1, SUM, opaque(data)).block(TIMEOUT);
        assertThat(reply.results().readLong()).isEqualTo(expected);
        assertThat(reply.results().readInt()).isEqualTo(data.length);
        reply.release();
        // The call's region was its only STag, and both ends set R: the reply invalidated it (RFC 8797 §4.1).
        assertThat(client.remoteInvalidations()).isEqualTo(1);
        assertThat(client.localInvalidations()).isZero();
    }

    @Test
    void rfc8166Section3_4_5AnArgumentInAReadChunkIsRdmaReadAndPutBackAtItsPositionWithoutRoundup() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        // An odd length: the chunk carries 50,001 octets and no XDR pad (§3.4.5.2); the server puts the pad back.
        ByteBuf data = PooledByteBufAllocator.DEFAULT.directBuffer(50_001, 50_001);
        try {
            long expected = 0;
            for (int i = 0; i < 50_001; i++) {
                data.writeByte(i * 13);
                expected += (i * 13) & 0xFF;
            }
            for (int call = 0; call < 2; call++) {
                // The inline part is the opaque's length word; the data belongs right after it (position 4).
                RpcReply reply = client.callWithData(PROGRAM, 1, SUM, Unpooled.buffer(4).writeInt(50_001), 4, data)
                        .block(TIMEOUT);
                assertThat(reply.results().readLong()).isEqualTo(expected);
                assertThat(reply.results().readInt()).isEqualTo(50_001);
                // The data chunk was the call's only STag and both ends set R (RFC 8797 §4.1).
                assertThat(reply.remotelyInvalidated()).isTrue();
                reply.release();
            }
            // Empty data: nothing to read, so no chunk and nothing to invalidate.
            RpcReply empty = client.callWithData(PROGRAM, 1, SUM, Unpooled.buffer(4).writeInt(0), 4,
                    data.slice(0, 0)).block(TIMEOUT);
            assertThat(empty.results().readLong()).isZero();
            assertThat(empty.results().readInt()).isZero();
            assertThat(empty.remotelyInvalidated()).isFalse();
            empty.release();
            assertThat(data.refCnt()).as("the caller keeps the data").isEqualTo(1);
            assertThat(data.readableBytes()).isEqualTo(50_001);
            assertThat(client.remoteInvalidations()).isEqualTo(2);
            assertThat(client.localInvalidations()).isZero();
        } finally {
            data.release();
        }
    }

    @Test
    void callDataMustBeDirectAndItsPositionAnXdrOffsetWithinTheArguments() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(8).writeLong(1);
        try {
            ByteBuf args1 = Unpooled.buffer(4).writeInt(8);
            assertThatThrownBy(() -> client.callWithData(PROGRAM, 1, SUM, args1, 4, Unpooled.buffer(8).writeLong(1))
                    .block(TIMEOUT)).hasMessageContaining("direct buffer");
            assertThat(args1.refCnt()).isZero();
            ByteBuf args2 = Unpooled.buffer(4).writeInt(8);
            assertThatThrownBy(() -> client.callWithData(PROGRAM, 1, SUM, args2, 2, direct).block(TIMEOUT))
                    .hasMessageContaining("multiple of 4");
            ByteBuf args3 = Unpooled.buffer(4).writeInt(8);
            assertThatThrownBy(() -> client.callWithData(PROGRAM, 1, SUM, args3, 8, direct).block(TIMEOUT))
                    .hasMessageContaining("within the 4 octets");
            assertThat(args2.refCnt() + args3.refCnt()).isZero();
        } finally {
            direct.release();
        }
    }

    @Test
    void rfc8166Section3_5_4BulkResultsAreWrittenIntoTheWriteChunkAndRemotelyInvalidated() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        ByteBuf sink = PooledByteBufAllocator.DEFAULT.directBuffer(200_000, 200_000);
        try {
            for (int call = 0; call < 3; call++) {
                int offset = call * 65_536;
                int before = sink.writerIndex();
                RpcReply reply = client.call(PROGRAM, 1, READ, Unpooled.buffer(8).writeInt(offset).writeInt(65_536),
                        sink).block(TIMEOUT);
                assertThat(reply.results().readInt()).as("the length word stays inline").isEqualTo(65_536);
                assertThat(reply.results().readableBytes()).as("the data does not").isZero();
                assertThat(reply.writeChunkOctets()).isEqualTo(65_536);
                assertThat(sink.writerIndex() - before).isEqualTo(65_536);
                // RFC 8797 §4.1: both ends set R and the call had one STag, so the reply invalidated it.
                assertThat(reply.remotelyInvalidated()).isTrue();
                reply.release();
            }
            for (int i = 0; i < 3 * 65_536; i++) {
                assertThat(sink.getByte(i)).as("octet %d", i).isEqualTo((byte) (i * 7 % 251));
            }
            assertThat(client.remoteInvalidations()).isEqualTo(3);
            assertThat(client.localInvalidations()).isZero();
        } finally {
            sink.release();
        }
    }

    @Test
    void rfc8797Section4_1WithoutTheClientsRTheReplyIsAPlainSendAndTheClientInvalidates() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create().remoteInvalidation(false));
        ByteBuf sink = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        try {
            RpcReply reply = client.call(PROGRAM, 1, READ, Unpooled.buffer(8).writeInt(0).writeInt(1001), sink)
                    .block(TIMEOUT);
            assertThat(reply.remotelyInvalidated()).isFalse();
            assertThat(reply.writeChunkOctets()).isEqualTo(1001);
            reply.release();
            assertThat(client.localInvalidations()).isEqualTo(1);
            assertThat(client.remoteInvalidations()).isZero();
        } finally {
            sink.release();
        }
    }

    @Test
    void aBulkResultWithoutAWriteChunkGoesInlineAndPadded() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        RpcReply reply = client.call(PROGRAM, 1, READ, Unpooled.buffer(8).writeInt(0).writeInt(5)).block(TIMEOUT);
        assertThat(reply.results().readInt()).isEqualTo(5);
        assertThat(reply.results().readableBytes()).as("5 octets and 3 of XDR padding").isEqualTo(8);
        reply.release();
    }

    @Test
    void rfc8166Section3_5_5AReplyAboveTheInlineThresholdIsWrittenIntoTheOfferedReplyChunk() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        RpcReply reply = client.call(PROGRAM, 1, BIG, Unpooled.buffer(4).writeInt(10_000), null, 16_384)
                .block(TIMEOUT);
        assertThat(reply.results().readableBytes()).isEqualTo(10_000);
        while (reply.results().isReadable()) {
            assertThat(reply.results().readByte()).isZero();
        }
        reply.release();
        // One STag (the Reply chunk's), both ends set R: the RDMA_NOMSG reply invalidated it.
        assertThat(client.remoteInvalidations()).isEqualTo(1);
        // With a result sink as well there are two STags: no Send with Invalidate, both invalidated here.
        ByteBuf sink = PooledByteBufAllocator.DEFAULT.directBuffer(8, 8);
        try {
            RpcReply both = client.call(PROGRAM, 1, BIG, Unpooled.buffer(4).writeInt(5_000), sink, 8_192)
                    .block(TIMEOUT);
            assertThat(both.results().readableBytes()).isEqualTo(5_000);
            assertThat(both.remotelyInvalidated()).isFalse();
            both.release();
            assertThat(client.localInvalidations()).isEqualTo(1);
        } finally {
            sink.release();
        }
        // A Reply chunk too small for the reply: ERR_CHUNK, as with none.
        StepVerifier.create(client.call(PROGRAM, 1, BIG, Unpooled.buffer(4).writeInt(10_000), null, 8_192))
                .expectError(RpcRdmaErrorException.class).verify(TIMEOUT);
    }

    @Test
    void aCallLargerThanTheServerTakesIsRefusedWithErrChunkBeforeAnythingIsAllocated() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        // A Long Call whose Read chunk is above RpcRdmaServer.MAX_CALL_SIZE: the server checks the lengths the
        // peer gives before it allocates memory to read them into.
        StepVerifier.create(client.call(PROGRAM, 1, SUM, opaque(new byte[RpcRdmaServer.MAX_CALL_SIZE])))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RpcRdmaErrorException.class,
                        r -> assertThat(r.error().code()).isEqualTo(RpcRdmaError.ERR_CHUNK)))
                .verify(TIMEOUT);
        RpcReply ok = client.call(PROGRAM, 1, NULL, Unpooled.EMPTY_BUFFER).block(TIMEOUT);
        ok.release();
    }

    @Test
    void aHandlerThatNeverAnswersIsCancelledWhenItsConnectionEndsAndItsArgumentsReleased() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        // RFC 8166 §3.3.1: one credit until the first reply, so a first call that never returns would hold it.
        RpcReply first = client.call(PROGRAM, 1, NULL, Unpooled.EMPTY_BUFFER).block(TIMEOUT);
        first.release();
        Mono<RpcReply> hung = client.call(PROGRAM, 1, 8, opaque(new byte[3000])).cache();
        hung.subscribe(RpcReply::release, e -> { });
        RpcReply ok = client.call(PROGRAM, 1, NULL, Unpooled.EMPTY_BUFFER).block(TIMEOUT);
        ok.release();
        client.dispose();
        StepVerifier.create(hung).expectError().verify(TIMEOUT);
        client.onDispose().block(TIMEOUT);
        client = null;
        // The leak check after this test finds the server's copy of the arguments released.
    }

    @Test
    void rpcErrorsAreTypedExceptions() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        StepVerifier.create(client.call(PROGRAM, 2, NULL, Unpooled.EMPTY_BUFFER))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RpcProgramMismatchException.class,
                        m -> assertThat(List.of(m.low(), m.high())).containsExactly(1, 1)))
                .verify(TIMEOUT);
        StepVerifier.create(client.call(PROGRAM, 1, 77, Unpooled.EMPTY_BUFFER))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RpcAcceptedException.class,
                        a -> assertThat(a.stat()).isEqualTo(RpcReplyHeader.AcceptStat.PROC_UNAVAIL)))
                .verify(TIMEOUT);
        StepVerifier.create(client.call(PROGRAM, 1, FAIL, Unpooled.EMPTY_BUFFER))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RpcAcceptedException.class,
                        a -> assertThat(a.stat()).isEqualTo(RpcReplyHeader.AcceptStat.SYSTEM_ERR)))
                .verify(TIMEOUT);
        // RFC 8166 §3.5.5: a reply too large to Send, with no Reply chunk offered, is ERR_CHUNK.
        StepVerifier.create(client.call(PROGRAM, 1, BIG, Unpooled.buffer(4).writeInt(10_000)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RpcRdmaErrorException.class,
                        r -> assertThat(r.error().code()).isEqualTo(RpcRdmaError.ERR_CHUNK)))
                .verify(TIMEOUT);
        // The connection survives all of them.
        RpcReply ok = client.call(PROGRAM, 1, NULL, Unpooled.EMPTY_BUFFER).block(TIMEOUT);
        ok.release();
    }

    @Test
    void rfc8166Section3_3NeverMoreCallsOutstandingThanGranted() {
        start(RpcRdmaServer.create().maxRequests(4), RpcRdmaClient.create().maxCredits(32));
        List<RpcReply> replies = Flux.range(0, 60).flatMap(i -> client.call(PROGRAM, 1, 9, Unpooled.EMPTY_BUFFER),
                60).collectList().block(TIMEOUT);
        replies.forEach(RpcReply::release);
        assertThat(replies).hasSize(60);
        assertThat(client.creditsGranted()).isEqualTo(4);
        assertThat(client.creditLimit()).isEqualTo(4);
        assertThat(mostInProgress.get()).as("calls in the handler at once").isBetween(1, 4);
    }

    @Test
    void bothEndsRunOnTheSessionBootstrapWithTheLoopsAndDeviceGiven() throws Exception {
        // Issue 16: no event loops and no device of the module's own; RFC 8166 runs as the sessions' protocol.
        reactor.netty.resources.LoopResources loops = reactor.netty.resources.LoopResources.create("rpc-test", 1,
                true);
        io.softrdma.verbs.RdmaDevice device = io.softrdma.verbs.RdmaDevice.create("rpc-test");
        try {
            start(RpcRdmaServer.create().device(device).tcpConfiguration(t -> t.runOn(loops)),
                    RpcRdmaClient.create().device(device).tcpConfiguration(t -> t.runOn(loops)));
            RpcReply reply = client.call(PROGRAM, 1, NULL, Unpooled.EMPTY_BUFFER).block(TIMEOUT);
            reply.release();
            assertThat(client.session().protocol().name()).isEqualTo("RPC-over-RDMA v1 (requester)");
            assertThat(client.session().rpcRdma()).isEqualTo(client.parameters());
            assertThat(client.connection()).isSameAs(client.session().connection());
            String thread = client.connection().channel().eventLoop().submit(() -> Thread.currentThread().getName())
                    .get(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertThat(thread).startsWith("rpc-test");
            assertThat(server.connections()).isEqualTo(1);
            assertThat(device.registeredRegions()).as("both ends' send and receive arenas").isGreaterThanOrEqualTo(4);
            client.dispose();
            client.onDispose().block(TIMEOUT);
            assertThat(client.isDisposed()).isTrue();
            client = null;
            server.dispose();
            server = null;
        } finally {
            loops.disposeLater().block(TIMEOUT);
        }
    }

    @Test
    void aRefusedConnectionFailsAndLeaksTheReceivesPostedForIt() throws java.io.IOException {
        // RFC 8166 §3.3.2: receives are posted before the connection is; a connection that never comes up
        // releases them (the leak check after this test looks).
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        StepVerifier.create(RpcRdmaClient.create().host("127.0.0.1").port(port).connect())
                .expectError(java.net.ConnectException.class).verify(TIMEOUT);
    }

    @Test
    void callsOutstandingWhenTheConnectionEndsFailAndLeakNothing() {
        start(RpcRdmaServer.create(), RpcRdmaClient.create());
        ByteBuf sink = PooledByteBufAllocator.DEFAULT.directBuffer(1024, 1024);
        try {
            // Slow calls in the handler while the server goes away: each ends, one way or the other.
            List<Mono<RpcReply>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(client.call(PROGRAM, 1, 9, Unpooled.EMPTY_BUFFER).cache());
            }
            calls.forEach(c -> c.subscribe(RpcReply::release, e -> { }));
            server.dispose();
            server = null;
            for (Mono<RpcReply> c : calls) {
                StepVerifier.create(c.onErrorResume(e -> Mono.empty()).doOnNext(RpcReply::release).then())
                        .expectComplete().verify(TIMEOUT);
            }
            client.onDispose().block(TIMEOUT);
            StepVerifier.create(client.call(PROGRAM, 1, READ, Unpooled.buffer(8).writeInt(0).writeInt(64), sink))
                    .expectError().verify(TIMEOUT);
        } finally {
            sink.release();
        }
    }
}
