package io.softrdma.verbs;

import static io.softrdma.verbs.RawPeer.tagged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.testing.Hex;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * RFC 5040 §6.2: an RDMAP Stream that detects an error sends a Terminate and then closes the LLP stream; the
 * Terminate must reach the peer. It is the last thing sent, often queued behind data TCP has not delivered yet,
 * while the peer may still be sending (Read Requests in flight). Closing the socket with the peer's octets unread
 * makes the kernel reset the connection and drop what it had not sent — the Terminate with it — so the queue pair
 * half-closes instead (FIN after the Terminate), reads on and discards, and closes once the peer has closed or a
 * linger has passed.
 */
class TerminateDeliveryTest {
    private static final int SIZE = 1 << 20;
    private static final int READS = 8;

    private final ConnectionManager cm = ConnectionManager.create(2);
    private final RdmaDevice device = RdmaDevice.create();
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(1024);
    private QueuePair qp;
    private RdmaListener listener;
    private RawPeer peer;
    private RdmaConnection accepted;

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
        if (qp != null) {
            qp.close();
            qp.closeFuture().handle((v, e) -> null).join();
        }
        if (listener != null) {
            listener.close();
        }
        cm.close();
        pd.close();
    }

    @RepeatedTest(3)
    void rfc5040Section6_2TheTerminateArrivesBehindBackedUpDataWhileThePeerKeepsSending() throws Exception {
        qp = pd.createQueuePair(QueuePairConfig.of(cq).withReadDepths(4, 16));
        CompletableFuture<RdmaConnection> done = new CompletableFuture<>();
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
                request -> request.accept(qp, new byte[0]).whenComplete((c, e) -> done.complete(c)));
        peer = RawPeer.connect(cm.eventLoopGroup(), listener.port(), MpaSettings.defaults());
        accepted = done.get(5, TimeUnit.SECONDS);
        MemoryRegion r = pd.allocate(SIZE, Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ));

        // Read Responses back up: in the socket, then in the channel's outbound buffer.
        peer.pauseReading();
        for (int i = 0; i < READS; i++) {
            peer.send(RawPeer.readRequest(1 + i, 0x99, (long) i * SIZE, SIZE, r.stag(), 0));
        }
        io.netty.channel.Channel ch = accepted.channel();
        await("Read Responses backed up in the channel").atMost(Duration.ofSeconds(10))
                .until(() -> ch.eventLoop().submit(() -> !ch.isWritable()).get());

        // An RDMA Write to an STag that does not exist: the Terminate queues behind the Read Responses. The peer
        // goes on sending (64-octet Sends, dropped unread by a terminated queue pair) until its stream ends.
        peer.send(tagged(0, true, 0x00abcd01, 0) + "00112233445566778899aabbccddeeff");
        AtomicBoolean sending = new AtomicBoolean(true);
        byte[] filler = Hex.bytes(RawPeer.untagged(0, true, 0, 0, 1, 0) + "00".repeat(64));
        Thread chatter = new Thread(() -> {
            while (sending.get() && peer.channel.isActive()) {
                peer.channel.writeAndFlush(Unpooled.wrappedBuffer(filler)).awaitUninterruptibly();
            }
        }, "chatter");
        chatter.start();
        try {
            peer.resumeReading();
            long octets = 0;
            byte[] u;
            do {
                u = peer.nextUlpdu(10); // fails if the stream ends without the Terminate
                if ((u[0] & 0x80) != 0) {
                    octets += u.length - 14;
                }
            } while ((u[1] & 0x0F) != 0x7); // RDMAP opcode 0111: Terminate (RFC 5040 §4.3)
            // What was framed before the Terminate comes first; Read Responses not yet begun are not sent after it.
            assertThat(octets).as("Read Response octets before the Terminate").isPositive()
                    .isLessThanOrEqualTo((long) READS * SIZE);
            // After the 18-octet untagged header: layer 1 (DDP) and error type 1 (tagged buffer), code 0 (invalid
            // STag): RFC 5040 §4.8, RFC 5041 §7.2.
            assertThat(u[18] & 0xFF).as("layer and error type").isEqualTo(0x11);
            assertThat(u[19] & 0xFF).as("TAGGED_INVALID_STAG").isZero();
            assertThat(peer.awaitClose()).as("the stream ends after the Terminate").isTrue();
        } finally {
            sending.set(false);
            chatter.join(5000);
        }
        try {
            qp.closeFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError("the queue pair closed normally");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TerminateException.class);
        }
        r.close();
    }
}
