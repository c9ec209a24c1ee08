package io.softrdma.samples.rping;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.ConnectionClosedException;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.rdmap.ReceivedTerminate;
import io.softrdma.rdmap.TerminateCode;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.rdmap.TerminateLayer;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.QueuePairState;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import io.softrdma.verbs.WorkCompletionStatus;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One side of an rping connection: its protection domain, buffers, completion queue and queue pair,
 * set up as {@code rping_setup_qp} and {@code rping_setup_buffers} do, and the hand-off of completions
 * from the event loop to the thread that runs the ping loop.
 *
 * <p>Buffers, as rping registers them: a 16-octet receive buffer (local write), a 16-octet send buffer,
 * the RDMA buffer (the server's Read sink and Write source, the client's Write sink) and, on the
 * client, the start buffer the server reads. Each region's base tagged offset is its memory address,
 * so the {@code buf} field of what this side advertises looks like a Linux peer's.
 *
 * <p>The queue pair has rping's depths (16 sends, 2 receives) and IRD = ORD = 1, what librdmacm's rping
 * ends up with. One receive is posted before the connection exists and reposted on the event loop the
 * moment it completes, after its 16 octets are copied out: the peer may send the next message as soon
 * as it has this side's answer, before the ping loop's thread has even woken up.
 *
 * <p>Thread safety: the ping loop runs on one thread; completions arrive on the event loop.
 *
 * <p>Why this class is long: it is one rping endpoint whole — buffers, queue pair, and the ping loop's steps that
 * client and server share, each bounded by the step timeout — kept together so that the exchange reads top to
 * bottom as rdma-core's rping.c does.
 */
final class RpingEndpoint implements AutoCloseable {
    /** Work request ids, so that a failed completion names what failed. */
    static final long WR_RECEIVE = 1;
    static final long WR_SEND = 2;
    static final long WR_RDMA_READ = 3;
    static final long WR_RDMA_WRITE = 4;

    /** rping's RPING_SQ_DEPTH. */
    private static final int SEND_QUEUE_DEPTH = 16;
    /** rping's max_recv_wr. */
    private static final int RECEIVE_QUEUE_DEPTH = 2;
    /** rping's IRD and ORD: librdmacm's rping accepts and connects with one outstanding Read. */
    static final int READ_DEPTH = 1;
    /** How long a failure report waits for the stream to end, to name a Terminate if there was one. */
    private static final Duration CLOSE_CAUSE_WAIT = Duration.ofSeconds(5);

    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    final QueuePair qp;
    private final MemoryRegion receiveBuffer;
    private final MemoryRegion sendBuffer;
    /** Server: Read sink and Write source. Client: Write sink. */
    final MemoryRegion rdmaBuffer;
    /** Client only: what the server reads; null on the server. */
    final MemoryRegion startBuffer;
    private final ReceiveWorkRequest receive;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final CompletableFuture<Void> closed;
    private final Duration timeout;
    private final RpingConsole console;
    private final CompletionQueue.Handler handler = this::onCompletion;
    /** Set when this side closes: receives completing after it are not reposted. */
    private volatile boolean closing;
    /** Whether the buffers were released (by the ping loop's thread only). */
    private boolean released;
    /** The established connection, for the MPA revision a failure report may need. */
    private volatile RdmaConnection connection;

    /** What the event loop hands to the ping loop: a completion (a copy), or the end of the stream. */
    private record Event(WorkCompletion completion, RpingInfo info, boolean streamEnded, Throwable cause) {
    }

    /** How the stream ended, as far as is known when a failure is reported. */
    private record Ending(boolean ended, Throwable cause) {
        static final Ending OPEN = new Ending(false, null);
    }

    /**
     * @param rdmaSize octets of the RDMA buffer
     * @param client whether to register a start buffer of {@code rdmaSize} octets too
     */
    RpingEndpoint(RdmaDevice device, int rdmaSize, boolean client, Duration timeout, RpingConsole console) {
        this.timeout = timeout;
        this.console = console;
        this.pd = device.allocateProtectionDomain();
        try {
            Set<Access> remote = Access.all();
            receiveBuffer = register(pd, RpingInfo.LENGTH, Access.of(Access.LOCAL_WRITE));
            sendBuffer = register(pd, RpingInfo.LENGTH, EnumSet.noneOf(Access.class));
            rdmaBuffer = register(pd, rdmaSize, remote);
            startBuffer = client ? register(pd, rdmaSize, remote) : null;
            cq = device.createCompletionQueue(2 * SEND_QUEUE_DEPTH);
            // rping uses no RFC 7306 operation, but offers them: against siw, -d then shows that a peer without
            // them agrees to none (and is never sent one), with the offer riding in the MPA private data.
            qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(SEND_QUEUE_DEPTH)
                    .withReceiveQueueDepth(RECEIVE_QUEUE_DEPTH).withReadDepths(READ_DEPTH, READ_DEPTH)
                    .withExtensions(RdmapExtensions.ALL));
            closed = qp.closeFuture();
            closed.whenComplete((v, e) -> events.add(new Event(null, null, true, e)));
            cq.setListener(q -> drain());
            cq.requestNotification(false);
            receive = ReceiveWorkRequest.of(WR_RECEIVE, ScatterGatherEntry.of(receiveBuffer));
            // Before the peer can send: rping posts its receive before rdma_connect / rdma_accept.
            qp.postReceive(receive);
        } catch (RuntimeException e) {
            pd.close();
            throw e;
        }
    }

    /**
     * Registers {@code length} octets of zeroed direct memory whose base tagged offset is its address,
     * as {@code ibv_reg_mr} on a Linux peer (the region keeps its own reference to the memory).
     */
    private static MemoryRegion register(ProtectionDomain pd, int length, Set<Access> access) {
        ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
        try {
            memory.setZero(0, length);
            long address = memory.hasMemoryAddress() ? memory.memoryAddress() : 0;
            return pd.register(memory, access, address);
        } finally {
            memory.release();
        }
    }

    void established(RdmaConnection c) {
        this.connection = c;
    }

    RdmaConnection connection() {
        return connection;
    }

    /** What to advertise so that the peer can reach {@code region}: its address, STag and {@code size}. */
    static RpingInfo advertise(MemoryRegion region, int size) {
        return new RpingInfo(region.baseTaggedOffset(), region.stag(), size);
    }

    /** Sends {@code info} (rping's {@code sq_wr}: a signaled Send of the 16-octet send buffer). */
    void send(RpingInfo info) {
        info.encode(sendBuffer.buffer(), 0);
        qp.postSend(SendWorkRequest.send(WR_SEND, ScatterGatherEntry.of(sendBuffer)));
    }

    /** RDMA Reads {@code length} octets from the peer's {@code rkey}/{@code to} into the RDMA buffer. */
    void read(int rkey, long to, int length) {
        qp.postSend(SendWorkRequest.read(WR_RDMA_READ, new ScatterGatherEntry(rdmaBuffer, 0, length), rkey, to));
    }

    /** RDMA Writes the first {@code length} octets of the RDMA buffer to the peer's {@code rkey}/{@code to}. */
    void write(int rkey, long to, int length) {
        qp.postSend(SendWorkRequest.write(WR_RDMA_WRITE, rkey, to, new ScatterGatherEntry(rdmaBuffer, 0, length)));
    }

    // ---- the event loop's side ----

    /** Polls everything, re-arms, and polls again for what arrived in between. */
    private void drain() {
        do {
            while (cq.poll(handler, 16) > 0) {
                // keep polling
            }
            cq.requestNotification(false);
        } while (cq.poll(handler, 16) > 0);
    }

    private void onCompletion(WorkCompletion view) {
        WorkCompletion c = view.copy();
        RpingInfo info = null;
        if (c.opcode() == WorkCompletionOpcode.RECEIVE && c.isSuccess()) {
            if (c.byteLength() == RpingInfo.LENGTH) {
                info = RpingInfo.decode(receiveBuffer.buffer(), 0);
            }
            // Copied out: the buffer may take the peer's next message (rping_cq_event_handler reposts here too).
            if (!closing && qp.state() == QueuePairState.RTS) {
                try {
                    qp.postReceive(receive);
                } catch (IllegalStateException e) {
                    // closed meanwhile: nothing more will arrive
                }
            }
        }
        events.add(new Event(c, info, false, null));
    }

    // ---- the ping loop's side ----

    /**
     * Waits for the completion of an {@code expected} work request, skipping the completions of Sends
     * (signaled, as rping's, but nothing waits for them), for at most the step timeout.
     *
     * @param step what this side is doing, for the failure report (e.g. "ping 3: RDMA Read ...")
     * @param endAllowed whether the stream may end here without that being a failure (the server
     *     between pings): then null is returned when it ends without a Terminate
     * @return the completion, with the decoded info for a receive of 16 octets
     * @throws RpingException when the step times out, fails or the stream ends
     */
    Received await(String step, WorkCompletionOpcode expected, boolean endAllowed)
            throws RpingException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Event e = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
            if (e == null) {
                throw new RpingException(step + ": nothing happened within " + seconds(timeout) + " s (--timeout)"
                        + hint());
            }
            if (e.streamEnded()) {
                Ending ending = new Ending(true, e.cause());
                if (endAllowed && endedCleanly(ending)) {
                    return null;
                }
                throw failure(step, null, ending);
            }
            WorkCompletion c = e.completion();
            if (!c.isSuccess()) {
                Ending ending = ending(deadline);
                if (endAllowed && c.status() == WorkCompletionStatus.FLUSHED && endedCleanly(ending)) {
                    return null;
                }
                throw failure(step, c, ending);
            }
            if (c.opcode() == expected) {
                return new Received(c.byteLength(), e.info());
            }
            if (c.opcode() == WorkCompletionOpcode.SEND) {
                console.debug("send completed (%d octets)", c.byteLength());
                continue;
            }
            throw new RpingException(step + ": a " + c.opcode() + " completed where a " + expected + " was due");
        }
    }

    /** A completion the ping loop waited for: octets placed, and for a 16-octet receive its contents. */
    record Received(long byteLength, RpingInfo info) {
    }

    /** The peer closed or reset the stream without a Terminate: how rping's DISCONNECTED looks here. */
    private static boolean endedCleanly(Ending ending) {
        return ending.ended() && (ending.cause() == null || ending.cause() instanceof ConnectionClosedException);
    }

    /** Waits a little for the stream to end, so that a report can name the Terminate that ended it. */
    private Ending ending(long deadline) throws InterruptedException {
        long wait = Math.min(CLOSE_CAUSE_WAIT.toNanos(), Math.max(0, deadline - System.nanoTime()));
        try {
            closed.get(wait, TimeUnit.NANOSECONDS);
            return new Ending(true, null);
        } catch (ExecutionException e) {
            return new Ending(true, e.getCause());
        } catch (TimeoutException e) {
            return Ending.OPEN;
        }
    }

    private RpingException failure(String step, WorkCompletion failed, Ending ending) {
        StringBuilder m = new StringBuilder(step).append(": ");
        boolean said = false;
        if (failed != null && failed.status() != WorkCompletionStatus.FLUSHED) {
            m.append("the ").append(failed.opcode()).append(" completed with ").append(failed.status());
            said = true;
        }
        if (ending.ended()) {
            if (said) {
                m.append("; ");
            }
            m.append(describeEnd(ending.cause()));
        } else if (!said) {
            m.append("the ").append(failed.opcode()).append(" completed with ").append(failed.status());
        }
        m.append(hint());
        return new RpingException(m.toString(), ending.cause());
    }

    /** How the stream ended, with the Terminate's Layer, EType and Error Code when there was one. */
    static String describeEnd(Throwable cause) {
        if (cause instanceof TerminateException t) {
            if (t.remote()) {
                ReceivedTerminate r = t.received();
                String extra = "";
                if (r != null && r.siwLayout()) {
                    extra += " (read in Linux siw's byte order)";
                }
                if (r != null && r.ambiguous()) {
                    extra += " (read the other way: " + describe(r.otherReading()) + ")";
                }
                return "the peer sent a Terminate: " + describe(t.code()) + extra;
            }
            String why = t.getMessage() == null ? "" : t.getMessage().replaceFirst("^Terminate sent: ", "");
            return "this side sent a Terminate: " + describe(t.code()) + (why.isEmpty() ? "" : " (" + why + ")");
        }
        if (cause instanceof ConnectionClosedException c) {
            Throwable io = c.getCause();
            return "the connection closed without a Terminate (the peer closed or reset it"
                    + (io != null && io.getMessage() != null ? ": " + io.getMessage() : "") + ")";
        }
        if (cause == null) {
            return "the connection was closed";
        }
        return "the connection failed: " + cause;
    }

    /** "layer 0 (RDMAP), etype 1, code 0x00: INVALID_STAG". */
    static String describe(TerminateCode code) {
        TerminateLayer layer = code.terminateLayer();
        return String.format("layer %d (%s), etype %d, code 0x%02x: %s", code.layer(),
                layer == null ? "unknown" : layer.name(), code.errorType(), code.errorCode(), code.name());
    }

    /**
     * With MPA revision 1 no IRD/ORD is exchanged: a Linux siw peer then sets IRD = ORD = 0 and can
     * neither issue nor serve an RDMA Read, which is the usual reason an rping against it fails.
     */
    String hint() {
        RdmaConnection c = connection;
        if (c != null && c.negotiation().revision() == 1) {
            return "; hint: MPA revision 1 was negotiated, which carries no IRD/ORD, so a Linux siw peer has"
                    + " IRD=ORD=0 and cannot RDMA Read (use --mpa-rev 2)";
        }
        return "";
    }

    /** What the MPA startup settled and what the queue pair uses, for {@code -d}. */
    static String describeConnection(RdmaConnection c) {
        MpaNegotiation n = c.negotiation();
        IrdOrdHeader peer = n.peerIrdOrd();
        QueuePair qp = c.queuePair();
        return address(c.localAddress()) + " -> " + address(c.remoteAddress()) + ": MPA revision " + n.revision()
                + (n.enhanced() ? " enhanced (RFC 6581)" : " (no IRD/ORD exchanged)") + ", CRC "
                + (n.crc() ? "on" : "off") + ", markers " + (n.markersSent() || n.markersReceived() ? "on" : "off")
                + ", MULPDU " + n.mulpdu() + ", IRD " + n.ird() + " ORD " + n.ord()
                + (peer != null ? " (peer offered IRD " + peer.ird() + " ORD " + peer.ord() + ")" : "")
                + ", queue pair IRD " + qp.ird() + " ORD " + qp.ord() + ", RTR " + n.readyToReceive()
                + ", RFC 7306 agreed: " + qp.extensions()
                + "; request " + n.request() + ", reply " + n.reply();
    }

    private static String address(SocketAddress a) {
        return a instanceof InetSocketAddress i && i.getAddress() != null ? RpingServer.format(i) : String.valueOf(a);
    }

    static String seconds(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : Double.toString(millis / 1000.0);
    }

    /**
     * Closes gracefully (rping's {@code rdma_disconnect}): posted work is carried out, then the stream
     * closes. Waits for that, at most the step timeout, then releases the buffers.
     *
     * @return how the stream ended: null after a clean close, or what ended it
     */
    Throwable closeAndWait() throws InterruptedException {
        if (released) {
            return null;
        }
        closing = true;
        qp.close();
        Throwable cause = null;
        try {
            closed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            cause = e.getCause();
        } catch (TimeoutException e) {
            cause = e;
        } finally {
            released = true;
            pd.close();
        }
        return cause;
    }

    @Override
    public void close() {
        try {
            closeAndWait();
        } catch (InterruptedException e) {
            // closeAndWait released the buffers on its way out
            Thread.currentThread().interrupt();
        }
    }
}
