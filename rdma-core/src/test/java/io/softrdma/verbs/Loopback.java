package io.softrdma.verbs;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Two connected queue pairs over real loopback TCP, each with its own device, protection domain and
 * completion queue: "client" initiated the connection, "server" accepted it.
 */
final class Loopback implements AutoCloseable {
    final ConnectionManager cm;
    final RdmaListener listener;
    final Side client;
    final Side server;

    /** One end: its device, domain, completion queue and queue pair. */
    static final class Side {
        final RdmaDevice device = RdmaDevice.create();
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(16384);
        final QueuePair qp;
        final java.util.List<String> events = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        RdmaConnection connection;

        Side(UnaryOperator<QueuePairConfig> config) {
            qp = pd.createQueuePair(config.apply(QueuePairConfig.of(cq)));
            qp.setListener(new QueuePairListener() {
                @Override
                public void onTerminate(QueuePair queuePair, io.softrdma.rdmap.TerminateException terminate) {
                    events.add(terminate.getMessage());
                }

                @Override
                public void onClosed(QueuePair queuePair, Throwable cause) {
                    events.add("closed: " + cause);
                }
            });
        }

        /** The next completion, which must be a success. */
        WorkCompletion nextSuccess() throws InterruptedException {
            WorkCompletion c = next();
            if (!c.isSuccess()) {
                throw new AssertionError(c + " on " + qp + "; events " + events);
            }
            return c;
        }

        MemoryRegion allocate(int length, Access first, Access... rest) {
            return pd.allocate(length, Access.of(first, rest));
        }

        /** The next completion, failing the test after 5 s. */
        WorkCompletion next() throws InterruptedException {
            WorkCompletion c = cq.take(Duration.ofSeconds(5));
            if (c == null) {
                throw new AssertionError("no completion within 5 s on " + qp);
            }
            return c;
        }
    }

    /** A queue pair that offers all of RFC 7306's extensions. */
    static final UnaryOperator<QueuePairConfig> EXTENSIONS = c -> c.withExtensions(io.softrdma.rdmap.RdmapExtensions.ALL);

    /** Both ends offered all of RFC 7306's extensions, so their queue pairs agreed to all of them. */
    static Loopback withExtensions() throws Exception {
        return new Loopback(MpaSettings.defaults(), EXTENSIONS, EXTENSIONS);
    }

    /** Pooled memory comes back with whatever an earlier user left in it. */
    static MemoryRegion zeroed(MemoryRegion region) {
        region.buffer().setZero(0, region.length());
        return region;
    }

    /** Neither end has seen a Terminate or a close. */
    void assertNoTerminate() {
        org.assertj.core.api.Assertions.assertThat(client.events).as("client events").isEmpty();
        org.assertj.core.api.Assertions.assertThat(server.events).as("server events").isEmpty();
    }

    Loopback() throws Exception {
        this(MpaSettings.defaults(), UnaryOperator.identity(), UnaryOperator.identity());
    }

    Loopback(MpaSettings mpa, UnaryOperator<QueuePairConfig> clientConfig, UnaryOperator<QueuePairConfig> serverConfig)
            throws Exception {
        this(ConnectionManager.create(2), mpa, clientConfig, serverConfig, s -> { });
    }

    Loopback(ConnectionManager cm, MpaSettings mpa, UnaryOperator<QueuePairConfig> clientConfig,
            UnaryOperator<QueuePairConfig> serverConfig, java.util.function.Consumer<Side> beforeConnect)
            throws Exception {
        this.cm = cm;
        this.client = new Side(clientConfig);
        this.server = new Side(serverConfig);
        beforeConnect.accept(server);
        beforeConnect.accept(client);
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        this.listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), mpa,
                request -> request.accept(server.qp, new byte[0]).whenComplete((c, e) -> {
                    if (e != null) {
                        accepted.completeExceptionally(e);
                    } else {
                        accepted.complete(c);
                    }
                }));
        client.connection = cm.connect(new InetSocketAddress("127.0.0.1", listener.port()), client.qp, new byte[0], mpa,
                Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
        server.connection = accepted.get(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        client.qp.close();
        server.qp.close();
        try {
            client.qp.closeFuture().handle((v, e) -> null).get(5, TimeUnit.SECONDS);
            server.qp.closeFuture().handle((v, e) -> null).get(5, TimeUnit.SECONDS);
        } finally {
            listener.close();
            cm.close();
            client.pd.close();
            server.pd.close();
        }
    }
}
