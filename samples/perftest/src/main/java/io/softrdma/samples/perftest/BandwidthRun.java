package io.softrdma.samples.perftest;

import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.io.PrintStream;

/**
 * The _bw tests after the pingpong_dests: perftest's {@code run_iter_bw} (client: up to {@code -t} work requests
 * outstanding per QP, {@code -n} per QP and size, or for {@code -D} seconds) and, for ib_send_bw, its
 * {@code run_iter_bw_server} (count the Sends received, receives reposted as they complete), with the control
 * exchanges around them as in {@code write_bw.c}, {@code read_bw.c} and {@code send_bw.c}.
 *
 * <p>ib_send_bw runs perftest's flow control for iWARP ({@code send_rcredit}, set when the transport is iWARP):
 * RC has none of its own there — no receiver-not-ready retry: a Send that finds no receive posted ends the stream
 * with a Terminate (DDP "no buffer", RFC 5041 §7.2), and a Send completes when it is handed to TCP, which says
 * nothing of the receiver. So each side's pingpong_dest names a credit word rather than its buffer; the receiver,
 * every {@code rx_depth / 3} receives (counted modulo rx_depth), RDMA Writes its receive count (32 bits, in the
 * receiver's byte order: little-endian on x86) into the sender's word, and the sender keeps fewer than
 * {@code rx_depth} Sends beyond it ({@code run_iter_bw}, {@code run_iter_bw_server}). Without it a siw server under
 * TCG ran out of its 512 receives at the 627th Send of this side, and a siw client waits forever for credit after
 * its 511th.
 *
 * <p>Thread safety: one run on one thread.
 */
final class BandwidthRun {
    private final PerftestOptions options;
    private final DataPlane data;
    private final PrintStream out;
    private final boolean client;
    private Reports.Bw last;

    BandwidthRun(PerftestOptions options, DataPlane data, PrintStream out) {
        this.options = options;
        this.data = data;
        this.out = out;
        this.client = options.client();
    }

    /**
     * ib_write_bw and ib_read_bw: the server does nothing on its data connections; after the client's runs (all
     * sizes with -a, without any exchange between them) a handshake, the client's result for the server to print,
     * and the closing handshake.
     */
    void rdmaBw(CommChannel comm, PingpongDest[] remote) throws PerftestException, InterruptedException {
        header();
        if (client) {
            for (int size : options.sizes()) {
                last = clientRun(size, remote);
                line(last.line());
            }
            line(Reports.RESULT_LINE);
            comm.handShake(PingpongDest.ZERO, "end of test");
            exchangeReport(comm, last);
            comm.handShake(PingpongDest.ZERO, "closing (ctx_close_connection)");
        } else {
            comm.handShake(PingpongDest.ZERO, "end of test");
            Reports.Bw theirs = exchangeReport(comm, new Reports.Bw(0, 0, 0, 0, 0));
            line(theirs.line());
            comm.handShake(PingpongDest.ZERO, "closing (ctx_close_connection)");
            line(Reports.RESULT_LINE);
        }
    }

    /**
     * ib_send_bw: per size the server posts its receives, a handshake starts the run, and each side prints its
     * own result (with -a a handshake ends each size); a closing handshake ends the test. No result is exchanged.
     */
    void sendBw(CommChannel comm, PingpongDest[] remote) throws PerftestException, InterruptedException {
        header();
        for (int size : options.sizes()) {
            if (!client) {
                data.postReceives(size, options.duration() > 0 ? 0 : options.iterations());
            }
            comm.handShake(PingpongDest.ZERO, "start of the " + size + "-octet run");
            if (client) {
                data.resetCredits(); // send_bw.c: credit_buf[j] = 0 after each size's starting handshake
            }
            Reports.Bw r = client ? clientRun(size, remote) : serverRun(size);
            line(r.line());
            if (data.badReceives.get() > 0) {
                throw new PerftestException(data.badReceives.get() + " Sends were not what was due: the first was "
                        + data.firstBadReceive);
            }
            if (options.all()) {
                comm.handShake(PingpongDest.ZERO, "end of the " + size + "-octet run");
            }
        }
        line(Reports.RESULT_LINE);
        comm.handShake(PingpongDest.ZERO, "closing (ctx_close_connection)");
    }

    private void header() {
        line(Reports.RESULT_LINE);
        line(options.gbits() ? Reports.RESULT_FMT_G : Reports.RESULT_FMT);
    }

    /** xchg_bw_reports: five exchanges of 8 octets (remote version ≥ 5.33: iterations as 64 bits). */
    private static Reports.Bw exchangeReport(CommChannel comm, Reports.Bw mine)
            throws PerftestException, InterruptedException {
        long size = Reports.longOf(comm.exchange(Reports.longBytes(mine.size()), "result: size"));
        long iters = Reports.longOf(comm.exchange(Reports.longBytes(mine.iters()), "result: iterations"));
        double peak = Reports.doubleOf(comm.exchange(Reports.doubleBytes(mine.peak()), "result: peak"));
        double avg = Reports.doubleOf(comm.exchange(Reports.doubleBytes(mine.avg()), "result: average"));
        double rate = Reports.doubleOf(comm.exchange(Reports.doubleBytes(mine.msgRate()), "result: message rate"));
        return new Reports.Bw(size, iters, peak, avg, rate);
    }

    /** run_iter_bw: keeps up to -t work requests outstanding on every QP until each has done its -n (or -D). */
    private Reports.Bw clientRun(int size, PingpongDest[] remote) throws PerftestException, InterruptedException {
        Tool.Verb verb = options.tool().verb;
        int qps = options.qps();
        long iters = options.iterations();
        boolean timed = options.duration() > 0;
        int window = options.txDepth();
        if (verb == Tool.Verb.READ) {
            window = Math.max(1, Math.min(window, data.endpoints.get(0).qp.ord()));
        }
        int capacity = timed ? 1 << 20 : (int) (iters * qps);
        long[] posted = new long[capacity];
        long[] completed = new long[capacity];
        long[] scnt = new long[qps];
        long[] ccnt = new long[qps];
        long total = timed ? Long.MAX_VALUE : iters * qps;
        long deadline = timed ? System.nanoTime() + options.duration() * 1_000_000_000L : Long.MAX_VALUE;
        int p = 0;
        int c = 0;
        boolean stop = false;
        // ib_send_bw over iWARP: no more than rx_depth Sends beyond the receiver's last credit (see the class).
        boolean credited = verb == Tool.Verb.SEND;
        while (c < total) {
            boolean blocked = false;
            if (timed && !stop && System.nanoTime() >= deadline) {
                stop = true;
            }
            for (int q = 0; q < qps && !stop; q++) {
                while ((timed || scnt[q] < iters) && scnt[q] - ccnt[q] < window && p < capacity) {
                    if (credited && ((scnt[q] + 1 - data.credit(q)) & 0xFFFFFFFFL) >= options.rxDepth()) {
                        blocked = true;
                        break;
                    }
                    posted[p++] = System.nanoTime();
                    post(q, scnt[q]++, size, remote[q]);
                }
            }
            if (stop && c == p) {
                break;
            }
            if (c == p && blocked) {
                // Nothing outstanding to wait for: only the receiver's next credit (an RDMA Write) lets this go on.
                awaitCredit(scnt, timed ? Long.MAX_VALUE : iters);
                continue;
            }
            WorkCompletion wc = data.endpoints.get(0).take("message " + c + " of the " + size + "-octet run");
            int q = (int) wc.wrId();
            if (verb == Tool.Verb.READ && options.verify()) {
                long o = DataPlane.offset(ccnt[q], size);
                int bad = Buffers.firstMismatch(data.local.buffer(), (int) (q * data.slot + o), size, o);
                if (bad >= 0) {
                    throw new PerftestException("RDMA Read " + ccnt[q] + " on QP " + q + " returned octet " + bad
                            + " that is not this sample's pattern (--verify)");
                }
            }
            ccnt[q]++;
            completed[c++] = System.nanoTime();
            if (timed && p == capacity) {
                stop = true;
            }
        }
        return Reports.bandwidth(size, posted, completed, c, options.gbits());
    }

    /**
     * Polls the credit words until a QP with Sends still to go may send again. It tests the condition itself rather
     * than waiting for a word to change from a value read now: the credit that unblocks may already have landed
     * between the sender's check and this call, and would then never be seen to change.
     */
    private void awaitCredit(long[] scnt, long iters) throws PerftestException {
        long deadline = System.nanoTime() + options.timeout().toNanos();
        while (true) {
            for (int q = 0; q < scnt.length; q++) {
                if (scnt[q] < iters && ((scnt[q] + 1 - data.credit(q)) & 0xFFFFFFFFL) < options.rxDepth()) {
                    return;
                }
            }
            String failure = data.failure();
            if (failure != null) {
                throw new PerftestException("waiting for the receiver's credit: " + failure);
            }
            if (System.nanoTime() > deadline) {
                throw new PerftestException("data connection: waiting for the receiver's credit (an RDMA Write of"
                        + " its receive count, perftest's iWARP flow control for ib_send_bw) after " + scnt[0]
                        + " Sends: nothing within " + options.timeout().toSeconds() + " s (--timeout)");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
    }

    private void post(int q, long k, int size, PingpongDest remote) throws PerftestException {
        Endpoint e = data.endpoints.get(q);
        int local = (int) (q * data.slot + DataPlane.offset(k, size));
        long to = remote.vaddr() + DataPlane.offset(k, size);
        ScatterGatherEntry sge = new ScatterGatherEntry(data.local, local, size);
        SendWorkRequest wr = switch (options.tool().verb) {
            case WRITE -> SendWorkRequest.write(q, remote.rkey(), to, sge);
            case READ -> SendWorkRequest.read(q, sge, remote.rkey(), to);
            case SEND -> SendWorkRequest.send(q, sge);
        };
        e.post(() -> e.qp.postSend(wr), "posting message " + k);
    }

    /** run_iter_bw_server: counts the Sends received on all QPs (the hook reposts receives). */
    private Reports.Bw serverRun(int size) throws PerftestException, InterruptedException {
        boolean timed = options.duration() > 0;
        long total = timed ? Long.MAX_VALUE : (long) options.iterations() * options.qps();
        int capacity = timed ? 1 << 20 : (int) total;
        long[] at = new long[capacity];
        int n = 0;
        long deadline = Long.MAX_VALUE;
        while (n < total) {
            WorkCompletion wc = data.endpoints.get(0).take("receive " + n + " of the " + size + "-octet run");
            if (wc.opcode() != WorkCompletionOpcode.RECEIVE) {
                continue;
            }
            long now = System.nanoTime();
            if (n == 0 && timed) {
                deadline = now + options.duration() * 1_000_000_000L;
            }
            if (n < capacity) {
                at[n] = now;
            }
            n++;
            if (timed && now >= deadline) {
                break;
            }
        }
        int counted = Math.min(n, capacity);
        return Reports.bandwidth(size, at, at, counted, options.gbits());
    }

    private void line(String s) {
        out.println(s);
        out.flush();
    }
}
