package io.softrdma.samples.perftest;

import java.util.Locale;

/**
 * The six perftest programs this sample speaks for: the verb (Send, RDMA Write, RDMA Read) and the kind of
 * test (bandwidth or latency). Each has its own order of messages on the control connection (see
 * {@link PerftestSession}), taken from perftest 4.5-0.17's {@code *_bw.c} and {@code *_lat.c}.
 *
 * <p>Thread safety: immutable.
 */
enum Tool {
    SEND_BW(Verb.SEND, false, "Send"),
    WRITE_BW(Verb.WRITE, false, "RDMA_Write"),
    READ_BW(Verb.READ, false, "RDMA_Read"),
    SEND_LAT(Verb.SEND, true, "Send"),
    WRITE_LAT(Verb.WRITE, true, "RDMA_Write"),
    READ_LAT(Verb.READ, true, "RDMA_Read");

    /** perftest's {@code enum verb}: the order matters, it is the value {@code ctx_print_pingpong_data} switches on. */
    enum Verb { SEND, WRITE, READ }

    final Verb verb;
    final boolean latency;
    /** The name in perftest's test banner ("RDMA_Write BW Test"). */
    final String banner;

    Tool(Verb verb, boolean latency, String banner) {
        this.verb = verb;
        this.latency = latency;
        this.banner = banner;
    }

    /** ib_write_bw, ib_send_lat, ... */
    String programName() {
        return "ib_" + name().toLowerCase(Locale.ROOT);
    }

    /** perftest's DEF_SIZE_BW / DEF_SIZE_LAT. */
    int defaultSize() {
        return latency ? 2 : 65536;
    }

    /** perftest's DEF_ITERS_WB for write_bw, DEF_ITERS otherwise. */
    int defaultIterations() {
        return this == WRITE_BW ? 5000 : 1000;
    }

    /** perftest's DEF_TX_BW / DEF_TX_LAT. */
    int defaultTxDepth() {
        return latency ? 1 : 128;
    }

    /** perftest's rx_depth: DEF_RX_SEND (512) for Send, DEF_RX_RDMA (1) otherwise. */
    int defaultRxDepth() {
        return verb == Verb.SEND ? 512 : 1;
    }

    /**
     * Parses "ib_write_bw", "write_bw" or "write-bw".
     *
     * @throws IllegalArgumentException naming the six programs
     */
    static Tool parse(String s) {
        String n = s.toLowerCase(Locale.ROOT).replace('-', '_');
        if (n.startsWith("ib_")) {
            n = n.substring(3);
        }
        for (Tool t : values()) {
            if (t.name().toLowerCase(Locale.ROOT).equals(n)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown test " + s + ": use one of ib_send_bw, ib_write_bw, ib_read_bw,"
                + " ib_send_lat, ib_write_lat, ib_read_lat");
    }
}
