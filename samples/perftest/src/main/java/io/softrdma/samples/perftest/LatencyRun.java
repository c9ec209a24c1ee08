package io.softrdma.samples.perftest;

import io.netty.buffer.ByteBuf;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The _lat tests after the pingpong_dests, on QP 0 as perftest's are: {@code run_iter_lat_write} (each side RDMA
 * Writes the message with its last octet set to its count, and waits for the peer's Write to change the last
 * octet of its own buffer; the server writes first), {@code run_iter_lat} (the client RDMA Reads, one at a time;
 * the server only waits for the closing handshake) and {@code run_iter_lat_send} (ping-pong of Sends; the client
 * sends first), with the control exchanges of {@code write_lat.c}, {@code read_lat.c} and {@code send_lat.c}.
 *
 * <p>Thread safety: one run on one thread.
 */
final class LatencyRun {
    /** Spins before parking while polling memory: a TCG guest on the same two cores needs them more. */
    private static final int SPINS = 200;
    private static final long PARK_NANOS = 20_000;

    private final PerftestOptions options;
    private final DataPlane data;
    private final PrintStream out;
    private final boolean client;

    LatencyRun(PerftestOptions options, DataPlane data, PrintStream out) {
        this.options = options;
        this.data = data;
        this.out = out;
        this.client = options.client();
    }

    /** ib_write_lat: both sides run; no handshake after the runs. */
    void writeLat(PingpongDest[] remote) throws PerftestException, InterruptedException {
        header();
        for (int size : options.sizes()) {
            writeRun(size, remote[0]);
        }
        line(Reports.RESULT_LINE);
    }

    /** ib_read_lat: the server waits for the client's closing handshake; the client reads. */
    void readLat(CommChannel comm, PingpongDest[] remote) throws PerftestException, InterruptedException {
        if (!client) {
            comm.handShake(PingpongDest.ZERO, "closing (ctx_close_connection)");
            return;
        }
        header();
        for (int size : options.sizes()) {
            readRun(size, remote[0]);
        }
        line(Reports.RESULT_LINE);
        comm.handShake(PingpongDest.ZERO, "closing (ctx_close_connection)");
    }

    /** ib_send_lat: per size, receives posted and a handshake, then the ping-pong; a closing handshake. */
    void sendLat(CommChannel comm) throws PerftestException, InterruptedException {
        header();
        for (int size : options.sizes()) {
            data.postReceives(size, options.duration() > 0 ? 0 : options.iterations());
            comm.handShake(PingpongDest.ZERO, "start of the " + size + "-octet run");
            sendRun(size);
            if (data.badReceives.get() > 0) {
                throw new PerftestException(data.badReceives.get() + " Sends were not what was due: the first was "
                        + data.firstBadReceive);
            }
        }
        line(Reports.RESULT_LINE);
        comm.handShake(PingpongDest.ZERO, "closing (ctx_close_connection)");
    }

    private void header() {
        line(Reports.RESULT_LINE);
        line(options.duration() > 0 ? Reports.RESULT_FMT_LAT_DUR : Reports.RESULT_FMT_LAT);
    }

    private void writeRun(int size, PingpongDest remote) throws PerftestException, InterruptedException {
        Endpoint e = data.endpoints.get(0);
        ByteBuf mine = data.local.buffer();
        ByteBuf polled = data.exposed.buffer();
        boolean timed = options.duration() > 0;
        long iters = timed ? Long.MAX_VALUE : options.iterations();
        long end = timed ? System.nanoTime() + options.duration() * 1_000_000_000L : Long.MAX_VALUE;
        long[] posted = new long[timed ? 1 : (int) iters];
        long scnt = 0;
        long ccnt = 0;
        long rcnt = 0;
        long t0 = System.nanoTime();
        while (scnt < iters || ccnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !client)) {
                rcnt++;
                if (!awaitOctet(polled, size - 1, (byte) rcnt, e, "the peer's RDMA Write " + rcnt + " of " + size
                        + " octets", timed ? end : Long.MAX_VALUE)) {
                    break; // -D: time is up
                }
            }
            if (scnt < iters) {
                if (timed && System.nanoTime() >= end) {
                    break;
                }
                if (!timed) {
                    posted[(int) scnt] = System.nanoTime();
                }
                mine.setByte(size - 1, (byte) ++scnt);
                SendWorkRequest wr = SendWorkRequest.write(0, remote.rkey(), remote.vaddr(),
                        new ScatterGatherEntry(data.local, 0, size));
                e.post(() -> e.qp.postSend(wr), "posting RDMA Write " + scnt);
            }
            if (ccnt < iters) {
                e.take("RDMA Write " + scnt + " completing");
                ccnt++;
            }
        }
        report(size, posted, scnt, System.nanoTime() - t0, false);
    }

    /**
     * Waits for {@code b[index]} to become {@code value}: the only sign of an RDMA Write at its target. The fence
     * keeps the read in the loop; the event loop placed the octets.
     *
     * @return false when the -D deadline passed first
     */
    private boolean awaitOctet(ByteBuf b, int index, byte value, Endpoint e, String what, long end)
            throws PerftestException {
        long deadline = System.nanoTime() + options.timeout().toNanos();
        int spins = 0;
        while (true) {
            VarHandle.acquireFence();
            if (b.getByte(index) == value) {
                return true;
            }
            if (++spins < SPINS) {
                Thread.onSpinWait();
                continue;
            }
            spins = 0;
            long now = System.nanoTime();
            if (now >= end) {
                return false;
            }
            if (now > deadline) {
                throw new PerftestException("data connection 0: waiting for " + what + ": nothing within "
                        + options.timeout().toSeconds() + " s (--timeout)");
            }
            if (e.ended()) {
                throw new PerftestException("data connection 0: waiting for " + what + ": the connection ended");
            }
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    private void readRun(int size, PingpongDest remote) throws PerftestException, InterruptedException {
        Endpoint e = data.endpoints.get(0);
        boolean timed = options.duration() > 0;
        long iters = timed ? Long.MAX_VALUE : options.iterations();
        long end = timed ? System.nanoTime() + options.duration() * 1_000_000_000L : Long.MAX_VALUE;
        long[] posted = new long[timed ? 1 : (int) iters];
        long scnt = 0;
        long t0 = System.nanoTime();
        while (scnt < iters && System.nanoTime() < end) {
            if (!timed) {
                posted[(int) scnt] = System.nanoTime();
            }
            SendWorkRequest wr = SendWorkRequest.read(0, new ScatterGatherEntry(data.local, 0, size), remote.rkey(),
                    remote.vaddr());
            long n = ++scnt;
            e.post(() -> e.qp.postSend(wr), "posting RDMA Read " + n);
            e.take("RDMA Read " + n + " completing");
            if (options.verify()) {
                int bad = Buffers.firstMismatch(data.local.buffer(), 0, size, 0);
                if (bad >= 0) {
                    throw new PerftestException("RDMA Read " + n + " returned octet " + bad
                            + " that is not this sample's pattern (--verify)");
                }
            }
        }
        report(size, posted, scnt, System.nanoTime() - t0, true);
    }

    private void sendRun(int size) throws PerftestException, InterruptedException {
        Endpoint e = data.endpoints.get(0);
        boolean timed = options.duration() > 0;
        long iters = timed ? Long.MAX_VALUE : options.iterations();
        long end = timed ? System.nanoTime() + options.duration() * 1_000_000_000L : Long.MAX_VALUE;
        long[] posted = new long[timed ? 1 : (int) iters];
        long scnt = 0;
        long rcnt = 0;
        long t0 = System.nanoTime();
        while (scnt < iters || rcnt < iters) {
            if (timed && System.nanoTime() >= end) {
                break;
            }
            if (rcnt < iters && !(scnt < 1 && client)) {
                String what = "the peer's Send " + (rcnt + 1) + " of " + size + " octets";
                WorkCompletion c;
                do {
                    // -D: the peer stops at its own deadline, perhaps before answering this side's last Send.
                    c = timed ? e.takeBefore(what, end) : e.take(what);
                } while (c != null && c.opcode() != WorkCompletionOpcode.RECEIVE);
                if (c == null) {
                    break;
                }
                rcnt++;
            }
            if (scnt < iters) {
                if (!timed) {
                    posted[(int) scnt] = System.nanoTime();
                }
                long n = ++scnt;
                SendWorkRequest wr = SendWorkRequest.send(0, new ScatterGatherEntry(data.local, 0, size));
                e.post(() -> e.qp.postSend(wr), "posting Send " + n);
            }
        }
        report(size, posted, scnt, System.nanoTime() - t0, false);
    }

    private void report(int size, long[] posted, long rounds, long nanos, boolean read) {
        if (options.duration() > 0) {
            line(Reports.latencyDuration(size, rounds, nanos, read));
        } else {
            line(Reports.latency(size, posted, (int) rounds, read));
        }
    }

    private void line(String s) {
        out.println(s);
        out.flush();
    }
}
