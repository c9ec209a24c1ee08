package io.softrdma.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Every one-sided operation of a RemoteRegion against a real memory server, and the owner's view of the result. */
class RemoteRegionTest {
    private Fixture fixture;

    @BeforeEach
    void start() {
        fixture = new Fixture(MemoryServer.create()
                .region("prices", 4096, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)
                .policy(AccessPolicy.grant("pricing", "prices", RegionAccess.READ, RegionAccess.WRITE,
                        RegionAccess.ATOMIC)), c -> c.credential("pricing"));
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void aResolvedRegionTellsItsSizeRightsAndServer() {
        RemoteRegion region = fixture.region("prices");
        assertThat(region.name()).isEqualTo("prices");
        assertThat(region.size()).isEqualTo(4096);
        assertThat(region.rights()).containsExactlyInAnyOrder(RegionAccess.READ, RegionAccess.WRITE,
                RegionAccess.ATOMIC);
        assertThat(region.server().getPort()).isEqualTo(fixture.server.port());
        assertThat(fixture.server.leaseCount()).isEqualTo(1);
    }

    @Test
    void readsWhatTheOwnerWroteAndTheOwnerSeesWhatTheClientWrote() {
        ServerRegion owned = fixture.server.region("prices");
        owned.buffer().setCharSequence(100, "owner wrote this", StandardCharsets.US_ASCII);
        RemoteRegion region = fixture.region("prices");

        StepVerifier.create(region.read(100, 16).map(b -> b.toString(StandardCharsets.US_ASCII)))
                .expectNext("owner wrote this").verifyComplete();
        region.write(200, Unpooled.copiedBuffer("client wrote", StandardCharsets.US_ASCII)).block(Fixture.TIMEOUT);
        // A Write is complete at the writer once handed to TCP (RFC 5040 §5.5), placed at the owner a little later.
        await().atMost(Fixture.TIMEOUT).until(() -> owned.buffer().toString(200, 12, StandardCharsets.US_ASCII)
                .equals("client wrote"));
    }

    @Test
    void wordsAndAtomicsAreBigEndianAndAtomicWithTheOwners() {
        ServerRegion owned = fixture.server.region("prices");
        RemoteRegion region = fixture.region("prices");
        region.putLong(8, 40).block(Fixture.TIMEOUT);
        await().atMost(Fixture.TIMEOUT).until(() -> owned.getLong(8) == 40);
        assertThat(region.fetchAdd(8, 2).block(Fixture.TIMEOUT)).isEqualTo(40);
        assertThat(owned.fetchAdd(8, 100)).isEqualTo(42);
        assertThat(region.getLong(8).block(Fixture.TIMEOUT)).isEqualTo(142);
        assertThat(region.compareAndSwap(8, 1, 2).block(Fixture.TIMEOUT)).as("a failed compare").isEqualTo(142);
        assertThat(region.compareAndSwap(8, 142, 7).block(Fixture.TIMEOUT)).isEqualTo(142);
        assertThat(owned.compareAndSwap(8, 7, 9)).isEqualTo(7);
        assertThat(region.getLong(8).block(Fixture.TIMEOUT)).isEqualTo(9);
    }

    @Test
    void concurrentFetchAddsFromClientAndOwnerLoseNothing() {
        ServerRegion owned = fixture.server.region("prices");
        RemoteRegion region = fixture.region("prices");
        Thread owner = new Thread(() -> {
            for (int i = 0; i < 2000; i++) {
                owned.fetchAdd(16, 1);
            }
        });
        owner.start();
        Flux.range(0, 2000).flatMap(i -> region.fetchAdd(16, 1), 32).blockLast(Fixture.TIMEOUT);
        org.awaitility.Awaitility.await().atMost(Fixture.TIMEOUT).until(() -> !owner.isAlive());
        assertThat(owned.getLong(16)).isEqualTo(4000);
    }

    record Price(String symbol, long cents) {
    }

    @Test
    void typedValuesGoThroughTheCodecAsVersionedRecords() {
        RemoteRegion region = fixture.region("prices");
        region.write(512, new Price("ACME", 12_345)).block(Fixture.TIMEOUT);
        assertThat(region.read(512, Price.class).block(Fixture.TIMEOUT)).isEqualTo(new Price("ACME", 12_345));
        ByteBuf payload = fixture.server.region("prices").readRecord(512);
        try {
            assertThat(payload.toString(StandardCharsets.UTF_8)).isEqualTo("{\"symbol\":\"ACME\",\"cents\":12345}");
        } finally {
            payload.release();
        }
    }

    @Test
    void aFluxOfReadsComesBackInOrder() {
        ServerRegion owned = fixture.server.region("prices");
        for (int i = 0; i < 64; i++) {
            owned.putLong(i * 8L, i * 10L);
        }
        RemoteRegion region = fixture.region("prices");
        List<Long> values = region.read(Flux.range(0, 64).map(i -> new RegionSlice(i * 8L, 8)))
                .map(b -> b.getLong(b.readerIndex())).collectList().block(Fixture.TIMEOUT);
        assertThat(values).hasSize(64);
        for (int i = 0; i < 64; i++) {
            assertThat(values.get(i)).isEqualTo(i * 10L);
        }
    }

    @Test
    void outOfBoundsAndMisalignedOperationsFailBeforeAnythingIsSent() {
        RemoteRegion region = fixture.region("prices");
        StepVerifier.create(region.read(4090, 8)).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside region 'prices' of 4096"))
                .verify(Fixture.TIMEOUT);
        StepVerifier.create(region.fetchAdd(4, 1)).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 8"))
                .verify(Fixture.TIMEOUT);
        StepVerifier.create(region.read(-1, 8)).expectError(IllegalArgumentException.class).verify(Fixture.TIMEOUT);
        ByteBuf data = Unpooled.directBuffer(16).writeZero(16);
        StepVerifier.create(region.write(4088, data)).expectError(IllegalArgumentException.class)
                .verify(Fixture.TIMEOUT);
        assertThat(data.refCnt()).as("a refused write still releases its data").isZero();
        assertThatThrownBy(() -> new RegionSlice(0, 0)).isInstanceOf(IllegalArgumentException.class);
        // the session is still good: nothing reached the wire
        assertThat(region.getLong(0).block(Fixture.TIMEOUT)).isZero();
    }

    @Test
    void aServiceAnswersARequestWithThePeersIdentity() {
        fixture.close();
        AtomicInteger calls = new AtomicInteger();
        fixture = new Fixture(MemoryServer.create().service("echo", (peer, request) -> {
            calls.incrementAndGet();
            String who = peer.credential().orElse("?");
            return Mono.just(Unpooled.copiedBuffer(who + ":" + request.toString(StandardCharsets.UTF_8),
                    StandardCharsets.UTF_8));
        }).service("broken", (peer, request) -> Mono.error(new IllegalStateException("no table yet"))),
                c -> c.credential("caller"));
        String answer = fixture.client.request("echo", "any key", Unpooled.copiedBuffer("hi", StandardCharsets.UTF_8))
                .map(b -> b.toString(StandardCharsets.UTF_8)).block(Fixture.TIMEOUT);
        assertThat(answer).isEqualTo("caller:hi");
        assertThat(calls).hasValue(1);
        StepVerifier.create(fixture.client.request("broken", 1, Unpooled.buffer(1).writeByte(1)))
                .expectErrorSatisfies(e -> assertThat(e).isExactlyInstanceOf(RemoteMemoryException.class)
                        .hasMessageContaining("service 'broken' failed").hasMessageContaining("no table yet"))
                .verify(Fixture.TIMEOUT);
        StepVerifier.create(fixture.client.request("missing", 1, Unpooled.buffer(1).writeByte(1)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(NoSuchRegionException.class)
                        .hasMessageContaining("no service 'missing'"))
                .verify(Fixture.TIMEOUT);
    }
}
