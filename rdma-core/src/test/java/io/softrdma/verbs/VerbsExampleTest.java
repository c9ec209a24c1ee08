package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** README's verbs example, word for word (region {@code verbs-example}), run against a loopback peer. */
class VerbsExampleTest {
    @Test
    void theReadmeVerbsExampleWritesIntoThePeersRegion() throws Exception {
        // The peer: a listener that accepts with a queue pair of its own and lends 4 KiB for Writes.
        RdmaDevice peerDevice = RdmaDevice.create();
        ProtectionDomain peerPd = peerDevice.allocateProtectionDomain();
        QueuePair peerQp = peerPd.createQueuePair(QueuePairConfig.of(peerDevice.createCompletionQueue(256)));
        MemoryRegion lent = peerPd.allocate(4096, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        int remoteStag = lent.stag();
        long remoteOffset = lent.baseTaggedOffset();
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        try (ConnectionManager peer = ConnectionManager.create(1);
                RdmaListener listener = peer.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
                        request -> request.accept(peerQp, new byte[0]).thenAccept(accepted::complete))) {
            String host = "127.0.0.1";
            int port = listener.port();
            // tag::verbs-example[]
            RdmaDevice device = RdmaDevice.create();
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(256);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            MemoryRegion buffer = pd.allocate(4096, Access.of(Access.LOCAL_WRITE));

            ConnectionManager cm = ConnectionManager.create();
            RdmaConnection connection = cm.connect(new InetSocketAddress(host, port), qp, new byte[0],
                    MpaSettings.defaults(), Duration.ofSeconds(5)).get();

            // The peer advertised a region (STag, tagged offset) in its private data or a Send.
            qp.postSend(SendWorkRequest.write(1, remoteStag, remoteOffset, ScatterGatherEntry.of(buffer)));
            WorkCompletion done = cq.take(Duration.ofSeconds(1));   // or poll / a listener on the event loop
            // end::verbs-example[]
            try {
                assertThat(done).isNotNull();
                assertThat(done.isSuccess()).as("%s", done).isTrue();
                assertThat(done.byteLength()).isEqualTo(4096);
                assertThat(accepted.get(5, java.util.concurrent.TimeUnit.SECONDS).queuePair()).isSameAs(peerQp);
            } finally {
                connection.close();
                cm.close();
                pd.close();
                lent.close();
                peerPd.close();
            }
        }
    }
}
