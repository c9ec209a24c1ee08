package io.softrdma.samples.perftest;

import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The test's memory and data queue pairs, laid out as perftest's {@code alloc_ctx}/{@code set_up_connection} do:
 * per QP i, a source/sink slot of BUFF_SIZE octets in {@link #local} and the slot advertised to the peer (its
 * {@code vaddr}) in {@link #exposed}. Messages smaller than half a page cycle through the page in cache-line
 * steps ({@code increase_loc_addr}/{@code increase_rem_addr}).
 *
 * <p>Receives for the Send tests are reposted on the event loop by a hook, as long as fewer than the run's
 * receives for that QP are posted (perftest posts exactly its iterations' worth, no more).
 *
 * <p>Thread safety: set up and driven by the test's thread; the receive hook runs on the event loop and shares
 * only atomics and volatile fields with it.
 */
final class DataPlane implements AutoCloseable {
    static final int CACHE_LINE = 64;
    static final int CYCLE_BUFFER = 4096;
    /** The work request id of a credit Write (not a QP index: the runs skip its completion). */
    static final long CREDIT_WR = -1;

    final PerftestOptions options;
    final int slot;
    final MemoryRegion local;
    final MemoryRegion exposed;
    /**
     * ib_send_bw's credit words (perftest's ctrl_buf): per QP, the receive count this side last wrote to the peer
     * ([0, 4n)), then the count the peer wrote here ([4n, 8n)); null for the other tests.
     */
    final MemoryRegion credits;
    /** Where ib_send_bw's credit Writes go: the peer's pingpong_dests, set once exchanged. */
    private volatile PingpongDest[] creditTargets;
    private final boolean credited;
    final List<Endpoint> endpoints = new ArrayList<>();
    final BlockingQueue<Endpoint.Event> events = new LinkedBlockingQueue<>();
    /** Per QP: receives posted in this run (hook and test thread). */
    private final AtomicIntegerArray posted;
    /** Receives the hook saw with a payload that is not the pattern (--verify), or of the wrong length. */
    final AtomicLong badReceives = new AtomicLong();
    volatile String firstBadReceive;
    /** The run's message size and receive limit per QP (0: unlimited, -D), set before receives are posted. */
    private volatile int runSize;
    private volatile long receiveLimit;
    /** Per QP: receives completed in this run; the event loop's alone (reset before the run's receives). */
    private final int[] received;
    private final ProtectionDomain pd;
    private final RdmaDevice device;

    DataPlane(RdmaDevice device, ProtectionDomain pd, PerftestOptions options) {
        this.device = device;
        this.pd = pd;
        this.options = options;
        this.slot = options.bufferSize();
        int qps = options.qps();
        this.local = Buffers.register(pd, qps * slot, EnumSet.of(Access.LOCAL_WRITE));
        this.exposed = Buffers.register(pd, qps * slot, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                Access.REMOTE_READ));
        this.credited = options.tool() == Tool.SEND_BW;
        this.credits = credited ? Buffers.register(pd, 8 * qps, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))
                : null;
        this.posted = new AtomicIntegerArray(qps);
        this.received = new int[qps];
        for (int q = 0; q < qps; q++) {
            // What a Write or Send carries and what a Read of this side returns: this sample's pattern.
            // (ib_write_lat's buffers stay zero as perftest's do: its receiver polls for one octet to change.)
            if (options.tool() != Tool.WRITE_LAT) {
                Buffers.fill(local.buffer(), q * slot, slot);
            }
            if (options.tool().verb == Tool.Verb.READ) {
                Buffers.fill(exposed.buffer(), q * slot, slot);
            }
        }
    }

    /**
     * Creates the data queue pair for QP index {@code q} (in index order), or a fresh one in place of a QP whose
     * connect failed (a queue pair serves one connection attempt).
     */
    Endpoint newEndpoint(int q) {
        if (q < endpoints.size()) {
            endpoints.get(q).retire();
            events.removeIf(Endpoint.Event::ended); // the failed attempt's end, if it was reported before
        }
        Tool t = options.tool();
        int send = Math.max(options.txDepth(), 1) + 1;
        int receive = t.verb == Tool.Verb.SEND ? Math.max(options.rxDepth(), 1) : 1;
        // perftest's conn_param: responder_resources = initiator_depth = out_reads for Read, 0 otherwise.
        int reads = t.verb == Tool.Verb.READ ? options.outReads() : 0;
        Endpoint e = new Endpoint("data connection " + q, device, pd, Math.max(send, 16), receive, reads,
                options.timeout(), this::onCompletion, events);
        if (q < endpoints.size()) {
            endpoints.set(q, e);
        } else {
            endpoints.add(e);
        }
        return e;
    }

    /**
     * The pingpong_dest of QP {@code q}: its buffer, or for ib_send_bw its credit word ({@code ctx_alloc_credit}
     * puts that in rkey and vaddr).
     */
    PingpongDest dest(int q, int psn) {
        int rkey = credited ? credits.stag() : exposed.stag();
        long vaddr = credited ? credits.baseTaggedOffset() + 4L * options.qps() + 4L * q
                : exposed.baseTaggedOffset() + (long) q * slot;
        return new PingpongDest(0, options.tool().verb == Tool.Verb.READ ? options.outReads() : 1,
                endpoints.get(q).qp.queuePairNumber(), psn, rkey, vaddr, new byte[16], 0, 0);
    }

    /** The peer's pingpong_dests: for ib_send_bw, where this side's credit Writes go. */
    void remote(PingpongDest[] remote) {
        this.creditTargets = remote.clone();
    }

    /** The receive count the peer last credited for QP {@code q} (ib_send_bw), as perftest's uint32_t. */
    long credit(int q) {
        java.lang.invoke.VarHandle.acquireFence(); // the peer's RDMA Write changes it; keep the read in the loop
        return credits.buffer().getIntLE(4 * options.qps() + 4 * q) & 0xFFFFFFFFL;
    }

    /** Clears the credit words received, as send_bw.c does before each size. */
    void resetCredits() {
        for (int q = 0; q < options.qps(); q++) {
            credits.buffer().setIntLE(4 * options.qps() + 4 * q, 0);
        }
    }

    /** perftest's address step for message k: cache-line steps within a page for messages up to half a page. */
    static long offset(long k, int size) {
        if (size > CYCLE_BUFFER / 2) {
            return 0;
        }
        long inc = (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
        return (k * inc) % CYCLE_BUFFER;
    }

    /**
     * {@code ctx_set_recv_wqes}: posts up to {@code rxDepth} receives of {@code size} octets on every QP, for a run
     * of {@code limit} messages per QP (0: no limit).
     */
    void postReceives(int size, long limit) throws PerftestException {
        runSize = size;
        receiveLimit = limit;
        for (int q = 0; q < endpoints.size(); q++) {
            posted.set(q, 0);
            received[q] = 0; // no receive is outstanding between runs: the event loop is not touching it
            long n = limit == 0 ? options.rxDepth() : Math.min(options.rxDepth(), limit);
            for (int i = 0; i < n; i++) {
                postReceive(q);
            }
        }
    }

    private void postReceive(int q) {
        int n = posted.getAndIncrement(q);
        endpoints.get(q).qp.postReceive(ReceiveWorkRequest.of(q, new ScatterGatherEntry(exposed,
                (int) (q * slot + offset(n, runSize)), runSize)));
    }

    /** On the event loop: check a received Send, and repost while the run needs more receives. */
    private void onCompletion(WorkCompletion c) {
        if (c.opcode() != WorkCompletionOpcode.RECEIVE) {
            return;
        }
        int q = (int) c.wrId();
        int size = runSize;
        int k = received[q]++;
        if (c.byteLength() != size) {
            noteBad("a Send of " + c.byteLength() + " octets where " + size + " were due");
        } else if (options.verify()) {
            // Receives complete in posting order, so this is the k-th posted one, at offset(k). Every message
            // carries the same octets, so a later receive at the same address leaves it whole.
            // The sender's k-th message left from the same offset of its filled buffer (_bw), or from its start (_lat).
            long from = options.tool().latency ? 0 : offset(k, size);
            int bad = Buffers.firstMismatch(exposed.buffer(), (int) (q * slot + offset(k, size)), size, from);
            if (bad >= 0) {
                noteBad("a Send's octet " + bad + " is not this sample's pattern (--verify)");
            }
        }
        long limit = receiveLimit;
        try {
            if (limit == 0 || posted.get(q) < limit) {
                postReceive(q);
            }
            int rcnt = k + 1;
            PingpongDest[] targets = creditTargets;
            if (credited && targets != null && (rcnt % options.rxDepth()) % Math.max(1, options.rxDepth() / 3) == 0) {
                // run_iter_bw_server: the receive count, reposted already, as an RDMA Write of 4 octets.
                credits.buffer().setIntLE(4 * q, rcnt);
                endpoints.get(q).qp.postSend(SendWorkRequest.write(CREDIT_WR, targets[q].rkey(), targets[q].vaddr(),
                        new ScatterGatherEntry(credits, 4 * q, 4)));
            }
        } catch (IllegalStateException e) {
            // closed meanwhile
        }
    }

    private void noteBad(String what) {
        if (badReceives.getAndIncrement() == 0) {
            firstBadReceive = what;
        }
    }

    /** Why a data connection ended early (a Terminate, a reset), or null while they are all up. */
    String failure() {
        for (int q = 0; q < endpoints.size(); q++) {
            var f = endpoints.get(q).qp.closeFuture();
            if (f.isDone()) {
                Throwable cause = null;
                try {
                    f.getNow(null);
                } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException x) {
                    cause = x.getCause();
                }
                return "data connection " + q + " ended: " + Endpoint.describeEnd(cause);
            }
        }
        return null;
    }

    /** Octets moved so far on all data connections, both ways (a racy sum: a progress indicator). */
    long octetsMoved() {
        long n = 0;
        for (Endpoint e : endpoints) {
            var c = e.qp.counters();
            for (RdmapOpcode o : RdmapOpcode.values()) {
                n += c.octets(o, true) + c.octets(o, false);
            }
        }
        return n;
    }

    @Override
    public void close() {
        for (Endpoint e : endpoints) {
            e.qp.close();
        }
        for (Endpoint e : endpoints) {
            e.close();
        }
    }
}
