package io.softrdma.verbs;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The fixture of the tests that speak to a queue pair octet by octet: a queue pair under test, in a domain and with a
 * completion queue of its own, that accepted a {@link RawPeer}'s connection on loopback.
 *
 * <p>Thread safety: used by one test's thread; {@link #close} once, after the test.
 */
final class AcceptedRawPeer implements AutoCloseable {
    final ConnectionManager cm = ConnectionManager.create(2);
    final RdmaDevice device = RdmaDevice.create();
    final ProtectionDomain pd = device.allocateProtectionDomain();
    final CompletionQueue cq = device.createCompletionQueue(1024);
    QueuePair qp;
    RdmaListener listener;
    RawPeer peer;
    RdmaConnection accepted;

    /**
     * Creates the queue pair under test ({@code config} applied to one on {@link #cq}), listens, connects a raw peer
     * offering {@code privateData} in its MPA Request, and waits until the queue pair has accepted it.
     */
    RawPeer connect(UnaryOperator<QueuePairConfig> config, MpaSettings settings, byte[] privateData)
            throws Exception {
        qp = pd.createQueuePair(config.apply(QueuePairConfig.of(cq)));
        CompletableFuture<RdmaConnection> done = new CompletableFuture<>();
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), settings,
                request -> request.accept(qp, new byte[0]).whenComplete((c, e) -> done.complete(c)));
        peer = RawPeer.connect(cm.eventLoopGroup(), listener.port(), settings, privateData);
        accepted = done.get(5, TimeUnit.SECONDS);
        return peer;
    }

    /** Closes the peer, then the queue pair (waiting for it), the listener, the connection manager and the domain. */
    @Override
    public void close() {
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
}
