package io.softrdma.samples.perftest;

import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * perftest's control connection with {@code -R} ({@code use_rdma_cm}): an RC queue pair of its own, on which
 * every parameter exchange is one RDMA Send each way into a receive of {@code sizeof(struct pingpong_dest)} (56)
 * octets ({@code rdma_write_data}/{@code rdma_read_data}, {@code rdma_write_keys}/{@code rdma_read_keys}). The
 * client sends first and then waits for the server's message; the server waits, then answers
 * ({@code ctx_xchg_data_rdma}, {@code ctx_hand_shake}). perftest keeps one receive posted and reposts it after
 * each message, which the strict alternation makes enough.
 *
 * <p>Thread safety: used by the test's thread; received messages are copied out on the event loop, before the
 * receive is reposted.
 */
final class CommChannel implements AutoCloseable {
    /** perftest's receive: sizeof(struct pingpong_dest). */
    static final int MESSAGE = PingpongDest.LENGTH;
    private static final long WR_RECEIVE = 1;
    private static final long WR_SEND = 2;

    final Endpoint endpoint;
    private final boolean client;
    private final MemoryRegion receiveBuffer;
    private final MemoryRegion sendBuffer;
    private final ConcurrentLinkedQueue<byte[]> received = new ConcurrentLinkedQueue<>();
    private final ReceiveWorkRequest receive;
    private int exchanges;
    /** Octets moved on the data connections so far, once they exist: a peer still testing is not stalled. */
    private volatile LongSupplier progress;
    /** Why the data connections failed, or null: then waiting on here is pointless. */
    private volatile Supplier<String> failed;

    /**
     * Sets up the queue pair with one receive posted (as perftest posts it before {@code rdma_connect} /
     * {@code rdma_accept}). ORD and IRD 0: perftest's control connection does Sends only and asks for no Reads.
     */
    CommChannel(RdmaDevice device, ProtectionDomain pd, boolean client, Duration timeout) {
        this.client = client;
        this.receiveBuffer = Buffers.register(pd, MESSAGE, EnumSet.of(Access.LOCAL_WRITE));
        this.sendBuffer = Buffers.register(pd, MESSAGE, EnumSet.noneOf(Access.class));
        this.receive = ReceiveWorkRequest.of(WR_RECEIVE, ScatterGatherEntry.of(receiveBuffer));
        this.endpoint = new Endpoint("control connection", device, pd, 4, 2, 0, timeout, this::onCompletion);
        endpoint.qp.postReceive(receive);
    }

    /** While the data connections move octets, waiting for the peer's next message has no time limit. */
    void watch(LongSupplier progress, Supplier<String> failed) {
        this.progress = progress;
        this.failed = failed;
    }

    /** On the event loop: copy a message out, then give the buffer back to the receive queue. */
    private void onCompletion(WorkCompletion c) {
        if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
            byte[] m = new byte[(int) c.byteLength()];
            receiveBuffer.buffer().getBytes(0, m);
            received.add(m);
            try {
                endpoint.qp.postReceive(receive);
            } catch (IllegalStateException e) {
                // closed meanwhile: nothing more arrives
            }
        }
    }

    /**
     * One {@code ctx_xchg_data}: sends {@code mine} and returns the peer's message of the same exchange.
     *
     * @param what what is exchanged, for a failure report
     * @throws PerftestException when the peer's message is not {@code mine.length} octets, or the step fails
     */
    byte[] exchange(byte[] mine, String what) throws PerftestException, InterruptedException {
        int n = ++exchanges;
        String step = "exchange " + n + " (" + what + ")";
        byte[] theirs;
        if (client) {
            send(mine, step);
            theirs = receive(step);
        } else {
            theirs = receive(step);
            send(mine, step);
        }
        if (theirs.length != mine.length) {
            throw new PerftestException("control connection: " + step + ": the peer sent " + theirs.length
                    + " octets where perftest sends " + mine.length + " (a different perftest version, or not -R?)");
        }
        return theirs;
    }

    /** One {@code ctx_hand_shake}: a pingpong_dest each way. */
    PingpongDest handShake(PingpongDest mine, String what) throws PerftestException, InterruptedException {
        return PingpongDest.decode(exchange(mine.encode(), what));
    }

    private void send(byte[] m, String step) throws PerftestException, InterruptedException {
        sendBuffer.buffer().setBytes(0, m);
        endpoint.post(() -> endpoint.qp.postSend(SendWorkRequest.send(WR_SEND, new ScatterGatherEntry(sendBuffer, 0,
                m.length))), step);
        // As rdma_write_data: wait for the Send to complete before reusing its buffer.
        while (true) {
            WorkCompletion c = endpoint.take(step + ": sending");
            if (c.opcode() == WorkCompletionOpcode.SEND) {
                return;
            }
            if (c.opcode() != WorkCompletionOpcode.RECEIVE) {
                throw new PerftestException("control connection: " + step + ": unexpected " + c.opcode());
            }
            pending++;
        }
    }

    /** Receives that completed while a send was awaited (their messages wait in {@link #received}). */
    private int pending;

    private byte[] receive(String step) throws PerftestException, InterruptedException {
        if (pending > 0) {
            pending--;
            return received.poll();
        }
        while (true) {
            WorkCompletion c = endpoint.take(step + ": waiting for the peer's message", progress, failed);
            if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
                return received.poll();
            }
            if (c.opcode() != WorkCompletionOpcode.SEND) {
                throw new PerftestException("control connection: " + step + ": unexpected " + c.opcode());
            }
        }
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
