package io.softrdma.samples.perf;

import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.samples.perf.PerfProtocol.Phase;
import io.softrdma.samples.perf.PerfProtocol.Reply;
import io.softrdma.samples.perf.PerfProtocol.Request;
import io.softrdma.samples.perf.PerfProtocol.Test;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The perf server: for each connection, prepares what the client's private data asks for and advertises
 * it in the MPA Reply — a region to write (write) or read (read), receive buffers (send), or a 64-bit word
 * for RFC 7306 atomics (fetch-add, compare-swap; the queue pair then offers the extensions) — then answers
 * the client's Sends on the event loop without allocating: it reposts each receive at once, returns
 * credits in batches (send bandwidth), echoes (send latency) and acknowledges (write). Atomics need nothing
 * of it: its queue pair answers them.
 */
final class RdmaPerfServer implements AutoCloseable {
    /** Control messages: an 8-octet count or acknowledgement. */
    static final int CONTROL = 8;
    /** The most receives a Send bandwidth session posts, whatever the client asks. */
    static final int MAX_RECEIVES = 1024;
    /** The receives a Send bandwidth session posts when the client asks for none, at most. */
    static final int DEFAULT_RECEIVES = 256;

    private final RdmaDevice device;
    private final RdmaListener listener;
    /** Octets the open sessions registered: their regions to write or read, receive buffers and control words. */
    private final java.util.concurrent.atomic.LongAdder registered = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder sessions = new java.util.concurrent.atomic.LongAdder();

    RdmaPerfServer(ConnectionManager cm, RdmaDevice device, String host, int port, MpaSettings mpa) {
        this.device = device;
        this.listener = cm.listen(new InetSocketAddress(host, port), mpa, this::onRequest);
    }

    int port() {
        return listener.port();
    }

    private void onRequest(ConnectRequest request) {
        Request r;
        try {
            r = Request.decode(request.privateData());
        } catch (RuntimeException e) {
            request.reject(e.getMessage().getBytes(StandardCharsets.US_ASCII));
            return;
        }
        Session s = new Session(device, r);
        long octets = s.registeredBytes();
        registered.add(octets);
        sessions.increment();
        Runnable close = () -> {
            s.close();
            registered.add(-octets);
            sessions.decrement();
        };
        request.accept(s.qp, s.reply().encode()).whenComplete((c, e) -> {
            if (e != null) {
                close.run();
            } else {
                s.qp.closeFuture().whenComplete((v, f) -> close.run());
            }
        });
    }

    /** Octets of memory the open sessions registered (what the server pins for its connections). Any thread. */
    long registeredBytes() {
        return registered.sum();
    }

    /** Sessions accepted and not yet closed. Any thread. */
    long sessions() {
        return sessions.sum();
    }

    @Override
    public void close() {
        listener.close();
    }

    /** One connection's resources and completion handling. */
    static final class Session implements CompletionQueue.Handler {
        final Request request;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion target;
        final MemoryRegion receives;
        final MemoryRegion control;
        final ReceiveWorkRequest[] receiveRequests;
        final int credits;
        final SendWorkRequest reply;
        final MemoryRegion creditCount;
        private final SendWorkRequest credit;
        private final SendWorkRequest signaledCredit;
        private long received;
        private int sinceCredit;
        private int sentCredits;

        Session(RdmaDevice device, Request request) {
            this.request = request;
            this.pd = device.allocateProtectionDomain();
            int size = request.size();
            boolean sendTest = request.test() == Test.SEND;
            boolean latency = request.phase() == Phase.LATENCY;
            this.credits = sendTest && !latency ? sendCredits(request) : 16;
            int receiveSize = sendTest ? size : CONTROL;
            this.cq = device.createCompletionQueue(2 * (credits + 512));
            boolean atomic = request.test().atomic();
            // Atomics only where asked for: a write, read or send client sees exactly the Reply it always did.
            this.qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(512).withReceiveQueueDepth(credits)
                    .withExtensions(atomic ? RdmapExtensions.ALL : RdmapExtensions.NONE));
            if (atomic) {
                // One word, counted from 0 (registered memory is not cleared); REMOTE_READ for the client's check.
                this.target = pd.allocate(PerfProtocol.ATOMIC_SIZE,
                        Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));
                target.buffer().setLong(0, 0);
            } else if (request.test() == Test.SEND) {
                this.target = null;
            } else {
                this.target = pd.allocate(size, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            }
            if (target != null && !atomic) {
                for (int i = 0; i < size; i++) {
                    target.buffer().setByte(i, i * 31 + 7);
                }
            }
            this.receives = pd.allocate(credits * receiveSize, Access.of(Access.LOCAL_WRITE));
            this.receiveRequests = new ReceiveWorkRequest[credits];
            for (int i = 0; i < credits; i++) {
                receiveRequests[i] = ReceiveWorkRequest.of(i,
                        new ScatterGatherEntry(receives, (long) i * receiveSize, receiveSize));
                qp.postReceive(receiveRequests[i]);
            }
            // What the server sends back: an echo of the client's size (send latency) or a control message.
            int replySize = sendTest && latency ? size : CONTROL;
            this.control = pd.allocate(replySize, Access.of(Access.LOCAL_WRITE));
            this.reply = SendWorkRequest.send(0, ScatterGatherEntry.of(control)).unsignaled();
            this.creditCount = pd.allocate(CONTROL, Access.of(Access.LOCAL_WRITE));
            this.signaledCredit = SendWorkRequest.send(1, ScatterGatherEntry.of(creditCount));
            this.credit = signaledCredit.unsignaled();
            cq.setListener(q -> drain());
            cq.requestNotification(false);
        }

        /** What this session registered: its target region, receive buffers, reply and credit words. */
        long registeredBytes() {
            return (target == null ? 0L : target.length()) + receives.length() + control.length()
                    + creditCount.length();
        }

        Reply reply() {
            return target == null ? new Reply(0, 0, 0, credits)
                    : new Reply(target.stag(), target.baseTaggedOffset(), target.length(), credits);
        }

        /** Polls everything, re-arms, and polls again for what arrived in between. */
        private void drain() {
            do {
                while (cq.poll(this, 64) > 0) {
                    // keep polling
                }
                cq.requestNotification(false);
            } while (cq.poll(this, 64) > 0);
        }

        @Override
        public void onCompletion(WorkCompletion c) {
            if (c.opcode() != WorkCompletionOpcode.RECEIVE || !c.isSuccess()
                    || qp.state() != io.softrdma.verbs.QueuePairState.RTS) {
                return;
            }
            qp.postReceive(receiveRequests[(int) c.wrId()]);
            received++;
            if (request.test() == Test.SEND && request.phase() == Phase.BANDWIDTH) {
                // Credits go back in batches of a quarter of the receives, with the running count, and at
                // once for a Send with Solicited Event (the client's last).
                if (++sinceCredit >= credits / 4 || c.solicited()) {
                    sinceCredit = 0;
                    creditCount.buffer().setLong(0, received);
                    sentCredits++;
                    // Every 64th signaled, so that the send queue's slots are reclaimed in batches too.
                    qp.postSend(sentCredits % 64 == 0 ? signaledCredit : credit);
                }
            } else {
                // Echo (send latency) or acknowledgement (write).
                qp.postSend(reply);
            }
        }

        /**
         * Send bandwidth's receives: as many as the client asked for, 16 to {@link #MAX_RECEIVES}, or by default as
         * many as 64 MiB allow, 16 to {@link #DEFAULT_RECEIVES} (what a client that asks for none gets, as {@code
         * --connections} clients and Sends of more than 256 octets).
         */
        static int sendCredits(Request request) {
            long wanted = request.receives() > 0 ? request.receives()
                    : Math.min(DEFAULT_RECEIVES, (64L << 20) / request.size());
            return (int) Math.max(16, Math.min(MAX_RECEIVES, wanted));
        }

        void close() {
            qp.close();
            pd.close();
        }
    }
}
