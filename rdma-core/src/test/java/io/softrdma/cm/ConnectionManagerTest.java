package io.softrdma.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.softrdma.mpa.MpaRejectedException;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.mpa.MpaStartupException.Reason;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.QueuePairState;
import io.softrdma.verbs.RdmaDevice;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection manager's states from the consumer's side: connect → (Request) → the listener's
 * decision → accept or reject, each with private data (RFC 5044 §7.1.2), and every way it can fail
 * in time.
 */
class ConnectionManagerTest {
    private final ConnectionManager cm = ConnectionManager.create(2);
    private final RdmaDevice device = RdmaDevice.create();
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(4096);

    @AfterEach
    void close() {
        cm.close();
    }

    private QueuePair qp() {
        return pd.createQueuePair(QueuePairConfig.of(cq));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static Throwable cause(CompletableFuture<?> f) throws Exception {
        try {
            f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static InetSocketAddress local(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    @Test
    void rfc5044Section7_1_2TheListenerSeesThePrivateDataBeforeDecidingAndBothSidesGetTheOther() throws Exception {
        AtomicReference<byte[]> seen = new AtomicReference<>();
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        QueuePair serverQp = qp();
        try (RdmaListener listener = cm.listen(local(0), MpaSettings.defaults(), request -> {
            seen.set(request.privateData());
            assertThat(request.irdOrd()).as("revision 2: the IRD/ORD block is apart").isNotNull();
            request.accept(serverQp, ascii("welcome")).whenComplete((c, e) -> accepted.complete(c));
        })) {
            RdmaConnection client = cm.connect(local(listener.port()), qp(), ascii("hello"), MpaSettings.defaults(),
                    Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
            RdmaConnection server = accepted.get(5, TimeUnit.SECONDS);
            assertThat(seen.get()).isEqualTo(ascii("hello"));
            assertThat(server.peerPrivateData()).isEqualTo(ascii("hello"));
            assertThat(client.peerPrivateData()).isEqualTo(ascii("welcome"));
            assertThat(client.queuePair().state()).isEqualTo(QueuePairState.RTS);
            client.close();
            server.close();
            assertThat(server.closeFuture().handle((v, e) -> "closed")).succeedsWithin(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void rfc5044Section7_1_2Rule6RejectCarriesPrivateDataBackToTheInitiator() throws Exception {
        try (RdmaListener listener = cm.listen(local(0), MpaSettings.defaults(),
                request -> request.reject(ascii("go away")))) {
            QueuePair client = qp();
            Throwable t = cause(cm.connect(local(listener.port()), client, ascii("hello"), MpaSettings.defaults(),
                    Duration.ofSeconds(5)));
            assertThat(t).isInstanceOf(MpaRejectedException.class);
            assertThat(((MpaRejectedException) t).privateData()).isEqualTo(ascii("go away"));
            assertThat(client.closeFuture()).failsWithin(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void rfc6581Section5ReplyPrivateDataTooLongFailsAtTheCallAndTheRequestCanStillBeDecided() throws Exception {
        CompletableFuture<String> errors = new CompletableFuture<>();
        QueuePair serverQp = qp();
        try (RdmaListener listener = cm.listen(local(0), MpaSettings.defaults(), request -> {
            StringBuilder seen = new StringBuilder();
            for (Runnable call : new Runnable[] {() -> request.accept(serverQp, new byte[509]),
                () -> request.reject(new byte[512])}) {
                try {
                    call.run();
                } catch (IllegalArgumentException e) {
                    seen.append(e.getMessage()).append('\n');
                }
            }
            errors.complete(seen.toString());
            request.accept(serverQp, new byte[508]);
        })) {
            RdmaConnection client = cm.connect(local(listener.port()), qp(), new byte[0], MpaSettings.defaults(),
                    Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
            assertThat(errors.get()).contains("509 octets of private data exceed the maximum of 508")
                    .contains("512 octets of private data exceed the maximum of 508");
            assertThat(client.peerPrivateData()).hasSize(508);
            client.close();
        }
    }

    @Test
    void aRevision1RequestMayBeAnsweredWith512Octets() throws Exception {
        QueuePair serverQp = qp();
        try (RdmaListener listener = cm.listen(local(0), MpaSettings.defaults(),
                request -> request.accept(serverQp, new byte[512]))) {
            RdmaConnection client = cm.connect(local(listener.port()), qp(), new byte[0],
                    MpaSettings.defaults().withRevision(1), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
            assertThat(client.peerPrivateData()).hasSize(512);
            client.close();
        }
    }

    @Test
    void aRequestIsDecidedOnceAndOnlyWithAnIdleQueuePair() throws Exception {
        CompletableFuture<Throwable> second = new CompletableFuture<>();
        CompletableFuture<Throwable> busy = new CompletableFuture<>();
        QueuePair serverQp = qp();
        try (RdmaListener listener = cm.listen(local(0), MpaSettings.defaults(), request -> {
            try {
                request.accept(serverQp, new byte[0]);
                busy.complete(null);
            } catch (RuntimeException e) {
                busy.complete(e);
            }
            try {
                request.reject(new byte[0]);
                second.complete(null);
            } catch (RuntimeException e) {
                second.complete(e);
            }
        })) {
            RdmaConnection first = cm.connect(local(listener.port()), qp(), new byte[0], MpaSettings.defaults(),
                    Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
            assertThat(second.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already accepted or rejected");
            assertThat(busy.get()).isNull();
            first.close();
        }
        assertThatThrownBy(() -> cm.connect(local(1), boundQueuePair(), new byte[0],
                MpaSettings.defaults(), Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already bound");
    }

    /** A queue pair that is no longer IDLE: it cannot be bound to a second connection. */
    private QueuePair boundQueuePair() throws Exception {
        QueuePair serverQp = qp();
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        RdmaListener listener = cm.listen(local(0), MpaSettings.defaults(),
                request -> request.accept(serverQp, new byte[0]).whenComplete((c, e) -> accepted.complete(c)));
        QueuePair client = qp();
        cm.connect(local(listener.port()), client, new byte[0], MpaSettings.defaults(), Duration.ofSeconds(5))
                .get(5, TimeUnit.SECONDS);
        accepted.get(5, TimeUnit.SECONDS);
        listener.close();
        return client;
    }

    @Test
    void acceptTimeoutClosesAConnectionTheConsumerNeverDecidedOn() throws Exception {
        CompletableFuture<ConnectRequest> pending = new CompletableFuture<>();
        MpaSettings settings = MpaSettings.defaults().withAcceptTimeout(Duration.ofMillis(200));
        try (RdmaListener listener = cm.listen(local(0), settings, pending::complete)) {
            QueuePair client = qp();
            Throwable t = cause(cm.connect(local(listener.port()), client, new byte[0], settings,
                    Duration.ofSeconds(5)));
            assertThat(t).isInstanceOf(MpaStartupException.class);
            assertThat(((MpaStartupException) t).reason()).isEqualTo(Reason.CONNECTION_CLOSED);
            // A decision after the timeout is ignored: the queue pair it names is closed, not bound.
            QueuePair late = qp();
            assertThat(pending.get().accept(late, new byte[0])).failsWithin(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void rfc5044Section7_1_2Rule10ReplyTimeoutFailsTheConnect() throws Exception {
        try (ServerSocket silent = new ServerSocket()) {
            silent.bind(local(0));
            QueuePair client = qp();
            CompletableFuture<RdmaConnection> connect = cm.connect(local(silent.getLocalPort()), client, new byte[0],
                    MpaSettings.defaults().withReplyTimeout(Duration.ofMillis(200)), Duration.ofSeconds(5));
            try (Socket accepted = silent.accept()) {
                Throwable t = cause(connect);
                assertThat(((MpaStartupException) t).reason()).isEqualTo(Reason.TIMEOUT);
                assertThat(t.getMessage()).contains("no complete MPA Reply within 200 ms");
            }
            assertThat(client.closeFuture()).failsWithin(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void listeningOnAnAddressInUseFailsWithTheAddress() throws Exception {
        try (RdmaListener first = cm.listen(local(0), MpaSettings.defaults(), r -> r.reject(new byte[0]))) {
            assertThatThrownBy(() -> cm.listen(local(first.port()), MpaSettings.defaults(), r -> { }))
                    .isInstanceOf(java.io.UncheckedIOException.class)
                    .hasMessageContaining("could not listen on /127.0.0.1:" + first.port());
        }
    }

    @Test
    void aRefusedTcpConnectFailsTheConnectAndClosesTheQueuePair() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(local(0));
            port = s.getLocalPort();
        }
        QueuePair client = qp();
        assertThat(cause(cm.connect(local(port), client, new byte[0], MpaSettings.defaults(),
                Duration.ofSeconds(2)))).isInstanceOf(ConnectException.class);
        // Closed before it was ever bound: done, and it takes no work.
        assertThat(client.closeFuture()).succeedsWithin(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> client.postReceive(io.softrdma.verbs.ReceiveWorkRequest.of(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("was closed");
    }
}
