package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** What a server's and a client's sessions report to their {@link RdmaMetricsRecorder}s, and their statistics. */
class MetricsRecorderTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Keeps every call, as text, in order. */
    static final class Recording implements RdmaMetricsRecorder {
        final List<String> events = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();

        @Override
        public void sessionOpened(RdmaSession session) {
            events.add("opened");
        }

        @Override
        public void sessionClosed(RdmaSession session, Throwable cause) {
            events.add("closed " + (cause == null ? "gracefully" : cause.getClass().getSimpleName()));
            closed.complete(null);
        }

        @Override
        public void operation(Operation operation, long octets, long nanos, boolean success) {
            assertThat(nanos).isPositive();
            events.add(operation + " " + octets + " " + (success ? "ok" : "failed"));
        }

        @Override
        public void terminate(TerminateException t) {
            events.add("terminate " + t.code().layer() + "/" + t.code().errorType() + "/" + t.code().errorCode()
                    + (t.remote() ? " received" : " sent"));
        }

        @Override
        public void startupFailed(StartupFailure failure) {
            events.add("startup " + failure);
        }
    }

    @Test
    void sessionsReportOperationsTerminatesAndTheirEndAndCountOnTheWire() throws Exception {
        Recording serverSide = new Recording();
        Recording clientSide = new Recording();
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).metrics(serverSide)
                .handle(session -> {
                    accepted.complete(session);
                    session.respond(request -> Mono.just(request), 1);
                    return session.onDispose();
                }).bindNow();
        try {
            RdmaSession client = RdmaClient.create().host("127.0.0.1").port(server.port()).metrics(clientSide)
                    .connect().block(TIMEOUT);
            RdmaSession serverSession = accepted.get(5, TimeUnit.SECONDS);
            LocalRegion region = serverSession.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            RemoteMemory remote = region.remote();
            StepVerifier.create(client.write(remote, Unpooled.directBuffer(100).writeZero(100))).verifyComplete();
            StepVerifier.create(client.read(remote.slice(0, 300)).then())
                    .verifyComplete();
            StepVerifier.create(client.request(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII)).then()).verifyComplete();

            SessionStatistics c = client.statistics();
            SessionStatistics s = serverSession.statistics();
            assertThat(c.ord()).isEqualTo(client.ord());
            assertThat(s.ird()).isEqualTo(serverSession.ird());
            assertThat(c.readsOutstanding()).isZero();
            assertThat(c.creditsAvailable()).isGreaterThanOrEqualTo(1);
            assertThat(s.creditsGranted()).isGreaterThanOrEqualTo(2);
            assertThat(c.counters().octets(RdmapOpcode.RDMA_WRITE, false)).isEqualTo(100);
            assertThat(s.counters().messages(RdmapOpcode.RDMA_READ_REQUEST, true)).isEqualTo(1);
            assertThat(s.counters().octets(RdmapOpcode.RDMA_READ_RESPONSE, false)).isEqualTo(300);
            assertThat(c.counters().messages(RdmapOpcode.SEND, false)
                    + c.counters().messages(RdmapOpcode.SEND_WITH_INVALIDATE, false)).isGreaterThanOrEqualTo(1);

            // RFC 5040 §7: reading an invalidated region: the server sends a Terminate, the client receives it.
            region.dispose();
            StepVerifier.create(client.read(remote.slice(0, 8))).expectError().verify(TIMEOUT);
            clientSide.closed.get(5, TimeUnit.SECONDS);
            serverSide.closed.get(5, TimeUnit.SECONDS);

            assertThat(clientSide.events).startsWith("opened", "WRITE 100 ok", "READ 300 ok", "REQUEST 4 ok")
                    .contains("READ 0 failed", "terminate 0/1/0 received")
                    .last().asString().startsWith("closed ");
            assertThat(serverSide.events).startsWith("opened").contains("terminate 0/1/0 sent");
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void refusedAndFailedStartupsAreReportedAsSuch() throws Exception {
        Recording serverSide = new Recording();
        Recording clientSide = new Recording();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).metrics(serverSide)
                .accept(request -> Mono.just(ConnectDecision.reject("not today"))).bindNow();
        try {
            StepVerifier.create(RdmaClient.create().host("127.0.0.1").port(server.port()).metrics(clientSide)
                    .connect()).expectError().verify(TIMEOUT);
            // Garbage instead of an MPA Request (RFC 5044 §7.1.1): the server closes the stream.
            try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                OutputStream out = raw.getOutputStream();
                out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                raw.setSoTimeout(5000);
                assertThat(raw.getInputStream().read()).as("the server closed the stream").isEqualTo(-1);
            }
            await().atMost(TIMEOUT).until(() -> serverSide.events.size() >= 2);
            assertThat(serverSide.events).containsExactly("startup REJECTED", "startup FAILED");
            assertThat(clientSide.events).containsExactly("startup REJECTED");
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }
}
