package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class TransportTurnsTest {
    @Test
    void theTransportsTakeTurnsNeitherAlwaysFirst() {
        assertThat(TransportTurns.order(0, 2)).containsExactly(0, 1);
        assertThat(TransportTurns.order(1, 2)).containsExactly(1, 0);
        assertThat(TransportTurns.order(2, 2)).containsExactly(0, 1);
        assertThat(TransportTurns.order(3, 1)).as("--no-baseline: one transport").containsExactly(0);
    }

    @Test
    void aRowAddsItsTurnsUp() {
        TransportTurns.Tally t = new TransportTurns.Tally();
        // 1,000 operations in 1 s at a client's 0.5 CPU, then 3,000 in 1 s at 1.0: 4,000 in 2 s at 0.75.
        t.bandwidth(new Measured(1_000, 1_000_000_000L), 0.5, 0.2, 10_000, 6_000);
        t.bandwidth(new Measured(3_000, 1_000_000_000L), 1.0, 0.4, 30_000, 18_000);
        t.latency(new long[] {30_000, 10_000});
        t.latency(new long[] {20_000});
        PerfResult r = t.result("rsocket-rr-rdma", 4096);
        assertThat(r.iterations()).isEqualTo(4_000);
        assertThat(r.messagesPerSecond()).isCloseTo(2_000, Offset.offset(1e-9));
        assertThat(r.mibPerSecond()).isCloseTo(2_000 * 4096 / 1048576.0, Offset.offset(1e-9));
        assertThat(r.clientCpu()).as("weighted by each turn's time").isCloseTo(0.75, Offset.offset(1e-9));
        assertThat(r.serverCpu()).isCloseTo(0.3, Offset.offset(1e-9));
        assertThat(r.allocatedPerOperation()).as("both sides, over all operations").isCloseTo(16,
                Offset.offset(1e-9));
        assertThat(r.p50Micros()).as("the round trips pooled: 10, 20, 30 µs").isEqualTo(20);
        assertThat(r.p99Micros()).isEqualTo(30);
    }

    @Test
    void anAllocationNotMeasuredInOneTurnIsNotMeasuredAtAll() {
        TransportTurns.Tally t = new TransportTurns.Tally();
        t.bandwidth(new Measured(10, 1_000), 1, 1, -1, 100);
        t.bandwidth(new Measured(10, 1_000), 1, 1, 100, 100);
        t.latency(new long[] {1_000});
        assertThat(t.result("rsocket-ff-tcp", 64).allocatedPerOperation()).isNaN();
    }
}
