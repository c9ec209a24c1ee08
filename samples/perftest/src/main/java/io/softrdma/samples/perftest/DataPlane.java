package io.softrdma.samples.perftest;

import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
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

    final PerftestOptions options;
    final int slot;
    final MemoryRegion local;
    final MemoryRegion exposed;
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

    /** The pingpong_dest of QP {@code q}. */
    PingpongDest dest(int q, int psn) {
        return new PingpongDest(0, options.tool().verb == Tool.Verb.READ ? options.outReads() : 1,
                endpoints.get(q).qp.queuePairNumber(), psn, exposed.stag(), exposed.baseTaggedOffset() + (long) q * slot,
                new byte[16], 0, 0);
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
            int bad = Buffers.firstMismatch(exposed.buffer(), (int) (q * slot + offset(k, size)), size);
            if (bad >= 0) {
                noteBad("a Send's octet " + bad + " is not this sample's pattern (--verify)");
            }
        }
        long limit = receiveLimit;
        if (limit == 0 || posted.get(q) < limit) {
            try {
                postReceive(q);
            } catch (IllegalStateException e) {
                // closed meanwhile
            }
        }
    }

    private void noteBad(String what) {
        if (badReceives.getAndIncrement() == 0) {
            firstBadReceive = what;
        }
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
