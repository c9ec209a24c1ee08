package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.testing.WithoutLeakTracking;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The receive path as it runs in production, without leak tracking: there the decoder slices a ULPDU
 * straight from the read buffer that holds it and computes CRCs through reused windows, paths that
 * leak-tracking wrappers (every other test runs at PARANOID) turn off. Messages of sizes that split
 * FPDUs across reads at every offset must arrive intact, with CRC on.
 */
@ExtendWith(WithoutLeakTracking.class)
class UntrackedBuffersLoopbackTest {
    @Test
    void writesAndSendsArriveIntactWhenReadBuffersAreSlicedDirectly() throws Exception {
        Random random = new Random(5044);
        try (Loopback lb = new Loopback(MpaSettings.defaults().withCrc(true), UnaryOperator.identity(),
                UnaryOperator.identity())) {
            int size = 1 << 20;
            MemoryRegion source = lb.client.allocate(size, Access.LOCAL_WRITE);
            byte[] data = new byte[size];
            random.nextBytes(data);
            source.buffer().setBytes(0, data);
            MemoryRegion target = lb.server.allocate(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion receive = lb.server.allocate(size, Access.LOCAL_WRITE);
            for (int round = 0; round < 40; round++) {
                int length = 1 + random.nextInt(300_000);
                int from = random.nextInt(size - length);
                int to = random.nextInt(size - length);
                lb.server.qp.postReceive(ReceiveWorkRequest.of(round, new ScatterGatherEntry(receive, to, length)));
                lb.client.qp.postSend(SendWorkRequest.write(round, target.stag(), target.baseTaggedOffset() + to,
                        new ScatterGatherEntry(source, from, length)));
                lb.client.qp.postSend(SendWorkRequest.send(round, new ScatterGatherEntry(source, from, length)));
                assertThat(lb.client.nextSuccess().byteLength()).isEqualTo(length);
                assertThat(lb.client.nextSuccess().byteLength()).isEqualTo(length);
                WorkCompletion received = lb.server.nextSuccess();
                assertThat(received.byteLength()).isEqualTo(length);
                byte[] expected = java.util.Arrays.copyOfRange(data, from, from + length);
                byte[] written = new byte[length];
                target.buffer().getBytes(to, written);
                byte[] sent = new byte[length];
                receive.buffer().getBytes(to, sent);
                assertThat(written).as("Write of %d octets, round %d", length, round).isEqualTo(expected);
                assertThat(sent).as("Send of %d octets, round %d", length, round).isEqualTo(expected);
            }
        }
    }
}
