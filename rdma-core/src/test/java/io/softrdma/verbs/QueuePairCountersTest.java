package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.rdmap.RdmapOpcode;
import org.junit.jupiter.api.Test;

/** Per-opcode, per-direction message and payload counts, as each side of a loopback pair sees them. */
class QueuePairCountersTest {

    private static long[] snapshot(QueuePairCounters c) {
        long[] s = new long[RdmapOpcode.values().length * 4];
        int i = 0;
        for (RdmapOpcode op : RdmapOpcode.values()) {
            for (boolean inbound : new boolean[] {false, true}) {
                s[i++] = c.messages(op, inbound);
                s[i++] = c.octets(op, inbound);
            }
        }
        return s;
    }

    private static long delta(QueuePairCounters c, long[] before, RdmapOpcode op, boolean inbound, boolean octets) {
        int i = (op.ordinal() * 2 + (inbound ? 1 : 0)) * 2 + (octets ? 1 : 0);
        return (octets ? c.octets(op, inbound) : c.messages(op, inbound)) - before[i];
    }

    @Test
    void eachMessageIsCountedOnceOnEachSideWithItsPayloadOctets() throws Exception {
        try (Loopback lb = new Loopback()) {
            QueuePairCounters client = lb.client.qp.counters();
            QueuePairCounters server = lb.server.qp.counters();
            long[] c0 = snapshot(client);
            long[] s0 = snapshot(server);

            // A Send of 200 000 octets: several segments (RFC 5041 §5), one message.
            MemoryRegion recv = lb.server.allocate(200_000, Access.LOCAL_WRITE);
            lb.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion src = lb.client.allocate(200_000, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(src)));
            lb.client.nextSuccess();
            lb.server.nextSuccess();
            // A Write of 1000 and a Read of 5000 into the server's memory.
            MemoryRegion target = lb.server.allocate(8192, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            lb.client.qp.postSend(SendWorkRequest.write(3, target.advertise().slice(0, 1000),
                    new ScatterGatherEntry(src, 0, 1000)));
            lb.client.nextSuccess();
            MemoryRegion sink = lb.client.allocate(5000, Access.LOCAL_WRITE);
            lb.client.qp.postSend(SendWorkRequest.read(4, ScatterGatherEntry.of(sink), target.advertise().slice(0, 5000)));
            lb.client.nextSuccess();

            assertThat(delta(client, c0, RdmapOpcode.SEND, false, false)).isEqualTo(1);
            assertThat(delta(client, c0, RdmapOpcode.SEND, false, true)).isEqualTo(200_000);
            assertThat(delta(server, s0, RdmapOpcode.SEND, true, false)).isEqualTo(1);
            assertThat(delta(server, s0, RdmapOpcode.SEND, true, true)).isEqualTo(200_000);
            assertThat(delta(client, c0, RdmapOpcode.RDMA_WRITE, false, true)).isEqualTo(1000);
            assertThat(delta(server, s0, RdmapOpcode.RDMA_WRITE, true, false)).isEqualTo(1);
            assertThat(delta(client, c0, RdmapOpcode.RDMA_READ_REQUEST, false, false)).isEqualTo(1);
            assertThat(delta(server, s0, RdmapOpcode.RDMA_READ_REQUEST, true, false)).isEqualTo(1);
            assertThat(delta(server, s0, RdmapOpcode.RDMA_READ_REQUEST, true, true))
                    .as("a Read Request carries no payload beyond its RDMAP header").isZero();
            assertThat(delta(server, s0, RdmapOpcode.RDMA_READ_RESPONSE, false, false)).isEqualTo(1);
            assertThat(delta(server, s0, RdmapOpcode.RDMA_READ_RESPONSE, false, true)).isEqualTo(5000);
            assertThat(delta(client, c0, RdmapOpcode.RDMA_READ_RESPONSE, true, true)).isEqualTo(5000);
            assertThat(delta(client, c0, RdmapOpcode.SEND, true, false)).as("nothing sent the other way").isZero();
            assertThat(lb.client.qp.readsOutstanding()).isZero();
            assertThat(lb.server.qp.inboundReadsQueued()).isZero();
            for (MemoryRegion r : new MemoryRegion[] {recv, src, target, sink}) {
                r.close();
            }
        }
    }
}
