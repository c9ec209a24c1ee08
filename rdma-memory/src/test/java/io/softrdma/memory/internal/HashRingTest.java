package io.softrdma.memory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Consistent hashing: keys spread over servers, and a server that comes or goes moves only its share. */
class HashRingTest {
    private static final int KEYS = 30_000;

    private static InetSocketAddress server(int i) {
        return InetSocketAddress.createUnresolved("memory-" + i + ".memory.default.svc", 7473);
    }

    private static Map<String, InetSocketAddress> place(HashRing ring) {
        Map<String, InetSocketAddress> placed = new HashMap<>();
        for (int k = 0; k < KEYS; k++) {
            placed.put("key-" + k, ring.pick("key-" + k));
        }
        return placed;
    }

    @Test
    void keysSpreadOverTheServers() {
        Map<String, InetSocketAddress> placed = place(new HashRing(List.of(server(0), server(1), server(2))));
        Map<InetSocketAddress, Integer> counts = new HashMap<>();
        placed.values().forEach(s -> counts.merge(s, 1, Integer::sum));
        assertThat(counts).hasSize(3);
        // 160 points per server keep each share near a third (within a few percent, for these names)
        counts.values().forEach(n -> assertThat(n).isBetween(KEYS / 4, KEYS / 2));
    }

    @Test
    void aServerThatGoesMovesOnlyItsKeysAndOneThatComesTakesAboutItsShare() {
        List<InetSocketAddress> three = List.of(server(0), server(1), server(2));
        Map<String, InetSocketAddress> before = place(new HashRing(three));
        Map<String, InetSocketAddress> without1 = place(new HashRing(List.of(server(0), server(2))));
        before.forEach((key, s) -> {
            if (!s.equals(server(1))) {
                assertThat(without1.get(key)).as(key).isEqualTo(s);
            }
        });
        Map<String, InetSocketAddress> four = place(new HashRing(List.of(server(0), server(1), server(2),
                server(3))));
        long moved = before.keySet().stream().filter(k -> !before.get(k).equals(four.get(k))).count();
        assertThat(four.entrySet().stream().filter(e -> !e.getValue().equals(server(3)))
                .allMatch(e -> before.get(e.getKey()).equals(e.getValue()))).as("only keys to the new server move")
                .isTrue();
        assertThat(moved).isBetween((long) KEYS / 8, (long) KEYS * 3 / 8);
    }

    @Test
    void everyClientWithTheSameServersAgreesWhateverTheOrder() {
        HashRing a = new HashRing(List.of(server(0), server(1), server(2)));
        HashRing b = new HashRing(List.of(server(2), server(0), server(1)));
        for (int k = 0; k < 1000; k++) {
            assertThat(b.pick(k)).isEqualTo(a.pick(k));
        }
        assertThat(a.pick(new byte[] {1, 2, 3})).isEqualTo(b.pick(new byte[] {1, 2, 3}));
    }

    @Test
    void podsBehindOneNameAreNamedByTheirAddresses() throws Exception {
        // What InetAddress.getAllByName("memory.default.svc") gives: every address carries the name it was asked for.
        var pod0 = java.net.InetAddress.getByAddress("memory.default.svc", new byte[] {10, 0, 0, 1});
        var pod1 = java.net.InetAddress.getByAddress("memory.default.svc", new byte[] {10, 0, 0, 2});
        InetSocketAddress a = new InetSocketAddress(pod0, 7473);
        InetSocketAddress b = new InetSocketAddress(pod1, 7473);
        assertThat(HashRing.name(a)).isEqualTo("10.0.0.1:7473");
        assertThat(HashRing.name(b)).isEqualTo("10.0.0.2:7473");
        Map<String, InetSocketAddress> placed = place(new HashRing(List.of(a, b)));
        assertThat(new java.util.HashSet<>(placed.values())).containsExactlyInAnyOrder(a, b);
        assertThat(HashRing.name(InetSocketAddress.createUnresolved("memory-0", 7473))).isEqualTo("memory-0:7473");
    }

    @Test
    void theCredentialTravelsInPrivateDataAfterOtherBlocks() {
        byte[] block = Credentials.encode("orders");
        byte[] privateData = new byte[40 + block.length];
        privateData[3] = 'S'; // a false start of the magic before the real one
        System.arraycopy(block, 0, privateData, 40, block.length);
        assertThat(Credentials.find(privateData)).isEqualTo("orders");
        assertThat(Credentials.find(new byte[0])).isNull();
        assertThat(Credentials.find(java.util.Arrays.copyOf(block, block.length - 1))).as("cut short").isNull();
        assertThat(Credentials.encode(null)).isEmpty();
    }
}
