package io.softrdma.verbs;

import static io.softrdma.testing.Hex.bytes;
import static io.softrdma.testing.Hex.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupException.Reason;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.mpa.ReadyToReceive;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RFC 6581 connection setup end to end: queue pairs that take the negotiated IRD/ORD, the RTR message
 * of peer-to-peer mode, the Terminates of a refused negotiation, and the first-FPDU probe — against
 * SoftRDMA itself and against a responder that writes raw octets (CRC off, so the FPDUs are plain).
 */
class EnhancedConnectionTest {
    private static final String REQ_KEY = "4d504120494420526571204672616d65";
    private static final String REP_KEY = "4d504120494420526570204672616d65";
    private static final MpaSettings NO_CRC = MpaSettings.defaults().withCrc(false);

    @Test
    void rfc6581Section5QueuePairsUseTheNegotiatedIrdAndOrd() throws Exception {
        try (Loopback lb = new Loopback(NO_CRC, c -> c.withReadDepths(2, 3), s -> s.withReadDepths(8, 1))) {
            // Client offers IRD 3, ORD 2; server answers ORD min(8, 3) = 3 and IRD min(1, 2) = 1.
            assertThat(lb.client.qp.ird()).isEqualTo(3);
            assertThat(lb.client.qp.ord()).isEqualTo(1);
            assertThat(lb.server.qp.ird()).isEqualTo(1);
            assertThat(lb.server.qp.ord()).isEqualTo(3);
            assertThat(lb.client.connection.negotiation().enhanced()).isTrue();
        }
    }

    @Test
    void rfc6581Section5WithThePeerIrdAtZeroReadsFailFast() throws Exception {
        try (Loopback lb = new Loopback(NO_CRC, c -> c, s -> s.withReadDepths(8, 0))) {
            assertThat(lb.client.qp.ord()).isZero();
            MemoryRegion sink = lb.client.allocate(4, Access.LOCAL_WRITE);
            assertThatThrownBy(() -> lb.client.qp.postSend(
                    SendWorkRequest.read(1, ScatterGatherEntry.of(sink), 0x100, 0)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("has ORD 0");
            sink.close();
        }
    }

    @Test
    void revision1KeepsTheConfiguredDepths() throws Exception {
        try (Loopback lb = new Loopback(NO_CRC.withRevision(1), c -> c.withReadDepths(2, 3),
                s -> s.withReadDepths(8, 1))) {
            assertThat(lb.client.qp.ord()).isEqualTo(2);
            assertThat(lb.server.qp.ord()).isEqualTo(8);
            assertThat(lb.client.connection.negotiation().revision()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = PeerToPeerMode.class, names = {"WRITE", "READ", "ANY"})
    void rfc6581Section4AfterTheRtrTheResponderMaySendFirst(PeerToPeerMode mode) throws Exception {
        try (Loopback lb = new Loopback(NO_CRC.withPeerToPeer(mode), c -> c, s -> s)) {
            ReadyToReceive expected = mode == PeerToPeerMode.READ ? ReadyToReceive.READ : ReadyToReceive.WRITE;
            assertThat(lb.client.connection.readyToReceive()).isEqualTo(expected);
            assertThat(lb.server.connection.readyToReceive()).isEqualTo(expected);
            MemoryRegion recv = lb.client.allocate(64, Access.LOCAL_WRITE);
            lb.client.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.server.allocate(5, Access.LOCAL_WRITE);
            src.buffer().setBytes(0, bytes("68656c6c6f"));
            lb.server.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(src)));
            assertThat(lb.server.nextSuccess().wrId()).isEqualTo(2);
            WorkCompletion received = lb.client.nextSuccess();
            assertThat(received.byteLength()).isEqualTo(5);
            assertThat(VerbsLoopbackTest.contents(recv, 0, 5)).isEqualTo(bytes("68656c6c6f"));
            // The RTR completes nothing on either side: the next completions are the test's own.
            MemoryRegion sink = lb.client.allocate(5, Access.LOCAL_WRITE);
            MemoryRegion source = lb.server.allocate(5, Access.LOCAL_WRITE, Access.REMOTE_READ);
            source.buffer().setBytes(0, bytes("776f726c64"));
            lb.client.qp.postSend(SendWorkRequest.read(3, ScatterGatherEntry.of(sink), source.stag(),
                    source.baseTaggedOffset()));
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(3);
            assertThat(VerbsLoopbackTest.contents(sink, 0, 5)).isEqualTo(bytes("776f726c64"));
            assertThat(lb.client.cq.poll()).isNull();
            assertThat(lb.server.cq.poll()).isNull();
            for (MemoryRegion r : new MemoryRegion[] {recv, src, sink, source}) {
                r.close();
            }
        }
    }

    @Test
    void rfc8797Section5_2InlineThresholdsAndRemoteInvalidationAreOnTheConnection() throws Exception {
        byte[] clientPd = RpcRdmaPrivateData.of(true, 8192, 4096).encode();
        byte[] serverPd = RpcRdmaPrivateData.of(true, 2048, 16384).encode();
        try (ConnectionManager cm = ConnectionManager.create(2)) {
            Loopback.Side client = new Loopback.Side(c -> c);
            Loopback.Side server = new Loopback.Side(c -> c);
            CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
            CompletableFuture<Integer> seenByServer = new CompletableFuture<>();
            try (var listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), NO_CRC, request -> {
                seenByServer.complete(request.rpcRdmaPrivateData().orElseThrow().sendSize());
                request.accept(server.qp, serverPd).whenComplete((c, e) -> accepted.complete(c));
            })) {
                RdmaConnection c = cm.connect(new InetSocketAddress("127.0.0.1", listener.port()), client.qp, clientPd,
                        NO_CRC, Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
                RdmaConnection s = accepted.get(5, TimeUnit.SECONDS);
                assertThat(seenByServer.get()).isEqualTo(8192);
                // §4.2: the smaller of own send size and the peer's receive size, each way.
                assertThat(c.rpcRdma().sendInlineThreshold()).isEqualTo(8192);
                assertThat(c.rpcRdma().receiveInlineThreshold()).isEqualTo(2048);
                assertThat(s.rpcRdma().sendInlineThreshold()).isEqualTo(2048);
                assertThat(s.rpcRdma().receiveInlineThreshold()).isEqualTo(8192);
                assertThat(c.rpcRdma().remoteInvalidation()).isTrue();
                assertThat(c.peerPrivateData()).isEqualTo(serverPd);
                c.close();
                s.close();
            }
        }
    }

    // ---- against a raw responder ----

    /** A responder that speaks MPA octet by octet on a plain socket (CRC off). */
    private static final class RawResponder implements AutoCloseable {
        final ServerSocket server = new ServerSocket();
        Socket socket;
        DataInputStream in;
        OutputStream out;

        RawResponder() throws IOException {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
        }

        int port() {
            return server.getLocalPort();
        }

        String acceptRequest() throws IOException {
            server.setSoTimeout(5000);
            socket = server.accept();
            socket.setSoTimeout(5000);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
            byte[] header = in.readNBytes(20);
            byte[] pd = in.readNBytes(((header[18] & 0xFF) << 8) | (header[19] & 0xFF));
            return hex(header) + hex(pd);
        }

        void write(String hex) throws IOException {
            out.write(bytes(hex));
            out.flush();
        }

        /** Frames a ULPDU as an FPDU with a zero CRC field. */
        void writeUlpdu(String ulpdu) throws IOException {
            int length = ulpdu.length() / 2;
            int pad = (4 - (2 + length) % 4) % 4;
            write(String.format("%04x", length) + ulpdu + "00".repeat(pad) + "00000000");
        }

        /** The next FPDU's ULPDU, in hex. */
        String readUlpdu() throws IOException {
            int length = in.readUnsignedShort();
            byte[] ulpdu = in.readNBytes(length);
            in.readNBytes((4 - (2 + length) % 4) % 4 + 4);
            return hex(ulpdu);
        }

        @Override
        public void close() throws IOException {
            if (socket != null) {
                socket.close();
            }
            server.close();
        }
    }

    private static CompletableFuture<RdmaConnection> connect(ConnectionManager cm, RawResponder raw,
            Loopback.Side client, MpaSettings settings) {
        return cm.connect(new InetSocketAddress("127.0.0.1", raw.port()), client.qp, new byte[0], settings,
                Duration.ofSeconds(5));
    }

    private static Throwable cause(CompletableFuture<?> f) throws Exception {
        try {
            f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void rfc6581Section5InitiatorTerminatesWithInsufficientIrdWhenTheResponderOrdIsDeeper() throws Exception {
        try (ConnectionManager cm = ConnectionManager.create(1); RawResponder raw = new RawResponder()) {
            Loopback.Side client = new Loopback.Side(c -> c.withReadDepths(4, 4));
            CompletableFuture<RdmaConnection> connect = connect(cm, raw, client, NO_CRC);
            assertThat(raw.acceptRequest()).isEqualTo(REQ_KEY + "10020004" + "00040004");
            raw.write(REP_KEY + "10020004" + "00040005");
            Throwable t = cause(connect);
            assertThat(((MpaStartupException) t).reason()).isEqualTo(Reason.INSUFFICIENT_IRD);
            // Terminate on QN 2, MSN 1: Layer 2 (LLP), EType 0 (MPA), Code 0x06.
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.terminate(2, 0, 6, "", 0, ""));
            assertThat(raw.in.read()).as("closed after the Terminate").isEqualTo(-1);
            assertThat(client.qp.closeFuture()).failsWithin(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void rfc6581Section5InitiatorTerminatesWithNoMatchingRtr() throws Exception {
        try (ConnectionManager cm = ConnectionManager.create(1); RawResponder raw = new RawResponder()) {
            Loopback.Side client = new Loopback.Side(c -> c.withReadDepths(1, 1));
            CompletableFuture<RdmaConnection> connect = connect(cm, raw, client,
                    NO_CRC.withPeerToPeer(PeerToPeerMode.WRITE));
            assertThat(raw.acceptRequest()).isEqualTo(REQ_KEY + "10020004" + "80018001");
            raw.write(REP_KEY + "10020004" + "80014001");
            assertThat(((MpaStartupException) cause(connect)).reason()).isEqualTo(Reason.NO_MATCHING_RTR);
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.terminate(2, 0, 7, "", 0, ""));
        }
    }

    @Test
    void rfc6581Section4WriteRtrIsTheZeroLengthWriteSiwSends() throws Exception {
        try (ConnectionManager cm = ConnectionManager.create(1); RawResponder raw = new RawResponder()) {
            Loopback.Side client = new Loopback.Side(c -> c.withReadDepths(1, 1));
            CompletableFuture<RdmaConnection> connect = connect(cm, raw, client,
                    NO_CRC.withPeerToPeer(PeerToPeerMode.ANY));
            assertThat(raw.acceptRequest()).isEqualTo(REQ_KEY + "10020004" + "8001c001");
            raw.write(REP_KEY + "10020004" + "80018001");
            assertThat(connect.get(5, TimeUnit.SECONDS).readyToReceive()).isEqualTo(ReadyToReceive.WRITE);
            // g2h_p2p_rping.txt: 00 0e | c1 40 00000001 0000000000000000 | crc
            assertThat(raw.readUlpdu()).isEqualTo("c14000000001" + "0000000000000000");
            connect.get().close();
        }
    }

    @Test
    void rfc6581Section4ReadRtrIsAnsweredBeforeAnythingElseAndCompletesNothing() throws Exception {
        try (ConnectionManager cm = ConnectionManager.create(1); RawResponder raw = new RawResponder()) {
            Loopback.Side client = new Loopback.Side(c -> c.withReadDepths(1, 1));
            CompletableFuture<RdmaConnection> connect = connect(cm, raw, client,
                    NO_CRC.withPeerToPeer(PeerToPeerMode.READ));
            raw.acceptRequest();
            raw.write(REP_KEY + "10020004" + "80014001");
            connect.get(5, TimeUnit.SECONDS);
            MemoryRegion src = client.allocate(3, Access.LOCAL_WRITE);
            src.buffer().setBytes(0, bytes("010203"));
            client.qp.postSend(SendWorkRequest.send(9, ScatterGatherEntry.of(src)));
            // h2g_rev2_p2p_read_rping.txt: the zero-length Read Request, QN 1, MSN 1, STags 1, size 0.
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.readRequest(1, 1, 0, 0, 1, 0));
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.untagged(3, true, 0, 0, 1, 0) + "010203");
            raw.writeUlpdu(RawPeer.tagged(2, true, 1, 0));
            assertThat(client.nextSuccess().wrId()).isEqualTo(9);
            // A later Read uses MSN 2 on QN 1; the RTR's answer completed nothing.
            MemoryRegion sink = client.allocate(4, Access.LOCAL_WRITE);
            client.qp.postSend(SendWorkRequest.read(10, ScatterGatherEntry.of(sink), 0x1234, 0));
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.readRequest(2, sink.stag(), sink.baseTaggedOffset(), 4,
                    0x1234, 0));
            raw.writeUlpdu(RawPeer.tagged(2, true, sink.stag(), sink.baseTaggedOffset()) + "01020304");
            assertThat(client.nextSuccess().wrId()).isEqualTo(10);
            assertThat(VerbsLoopbackTest.contents(sink, 0, 4)).isEqualTo(bytes("01020304"));
            assertThat(client.qp.state()).isEqualTo(QueuePairState.RTS);
            connect.get().close();
            src.close();
            sink.close();
        }
    }

    @Test
    void rfc6581Section5AReadRtrAnsweredToAnotherStagIsATerminate() throws Exception {
        try (ConnectionManager cm = ConnectionManager.create(1); RawResponder raw = new RawResponder()) {
            Loopback.Side client = new Loopback.Side(c -> c.withReadDepths(1, 1));
            CompletableFuture<RdmaConnection> connect = connect(cm, raw, client,
                    NO_CRC.withPeerToPeer(PeerToPeerMode.READ));
            raw.acceptRequest();
            raw.write(REP_KEY + "10020004" + "80014001");
            connect.get(5, TimeUnit.SECONDS);
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.readRequest(1, 1, 0, 0, 1, 0));
            String response = RawPeer.tagged(2, true, 7, 0);
            raw.writeUlpdu(response);
            // DDP tagged, invalid STag (1/1/0), with the offending segment's header.
            assertThat(raw.readUlpdu()).isEqualTo(RawPeer.terminate(1, 1, 0, response, 14, ""));
        }
    }

    @Test
    void aQueuePairThatCannotHoldTheOfferedIrdTerminatesInsteadOfBreakingItsPromise() throws Exception {
        try (RawResponder raw = new RawResponder()) {
            EventLoopGroup group = RdmaTransport.best().newEventLoopGroup(1,
                    new DefaultThreadFactory("irdtest", true));
            Loopback.Side client = new Loopback.Side(c -> c.withReadDepths(1, 2));
            try {
                // A low-level binding that offers IRD 8 for a queue pair that holds 2 inbound Reads.
                MpaStartupHandler startup = MpaStartupHandler.initiator(NO_CRC, 8, 1,
                        new byte[0]);
                QueuePairHandler handler = QueuePairHandler.of(client.qp);
                new Bootstrap().group(group)
                        .channel(RdmaTransport.best().socketChannel())
                        .handler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel ch) {
                                ch.pipeline().addLast(PipelineNames.MPA_STARTUP, startup);
                                ch.pipeline().addLast(PipelineNames.QUEUE_PAIR, handler);
                            }
                        }).connect(new InetSocketAddress("127.0.0.1", raw.port())).sync();
                assertThat(raw.acceptRequest()).endsWith("00080001");
                raw.write(REP_KEY + "10020004" + "00010008");
                // Layer 2 (LLP), EType 0, Code 0x05: local catastrophic.
                assertThat(raw.readUlpdu()).isEqualTo(RawPeer.terminate(2, 0, 5, "", 0, ""));
                assertThat(client.qp.closeFuture()).failsWithin(5, TimeUnit.SECONDS);
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }

    /**
     * The first-FPDU probe: one zero-length Write when the responder stays silent after the first FPDU
     * (siw 6.1 may not have read it: it replied before watching the socket); none once it answered.
     */
    @ParameterizedTest(name = "responder answers: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void firstFpduProbe(boolean responderAnswers) throws Exception {
        try (ConnectionManager cm = ConnectionManager.create(1); RawResponder raw = new RawResponder()) {
            Loopback.Side client = new Loopback.Side(c -> c);
            CompletableFuture<RdmaConnection> connect = connect(cm, raw, client,
                    NO_CRC.withFirstFpduProbe(Duration.ofMillis(100)));
            raw.acceptRequest();
            raw.write(REP_KEY + "10020004" + "00800080");
            connect.get(5, TimeUnit.SECONDS);
            MemoryRegion src = client.allocate(1, Access.LOCAL_WRITE);
            client.qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(src)));
            assertThat(raw.readUlpdu()).startsWith(RawPeer.untagged(3, true, 0, 0, 1, 0));
            if (responderAnswers) {
                raw.writeUlpdu(RawPeer.tagged(0, true, 1, 0));
            } else {
                assertThat(raw.readUlpdu()).isEqualTo(RawPeer.tagged(0, true, 1, 0));
            }
            raw.socket.setSoTimeout(400);
            assertThat(readOrTimeout(raw)).as("at most one probe").isNull();
            connect.get().close();
            src.close();
        }
    }

    private static String readOrTimeout(RawResponder raw) throws IOException {
        try {
            return raw.readUlpdu();
        } catch (java.net.SocketTimeoutException e) {
            return null;
        }
    }
}
