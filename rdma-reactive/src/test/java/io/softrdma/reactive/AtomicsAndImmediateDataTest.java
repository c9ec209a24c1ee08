package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * RFC 7306 through the reactive API: {@code fetchAdd} and {@code compareAndSwap} as {@code Mono<Long>}, a counter
 * shared by several connections, {@code writeWithImmediate} and the peer's {@code immediates()}, and a peer that
 * did not agree to the extensions.
 */
class AtomicsAndImmediateDataTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void rfc7306FetchAddAndCompareAndSwapEmitTheValueBefore() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            assertThat(pair.client.extensions()).isEqualTo(RdmapExtensions.ALL);
            assertThat(pair.serverSession.extensions()).isEqualTo(RdmapExtensions.ALL);
            LocalRegion region = pair.serverSession.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
            region.buffer().setZero(0, 64);
            RemoteMemory word = region.remote().slice(8, 8);
            StepVerifier.create(pair.client.fetchAdd(word, 5)).expectNext(0L).expectComplete().verify(TIMEOUT);
            StepVerifier.create(pair.client.fetchAdd(word, -2)).expectNext(5L).expectComplete().verify(TIMEOUT);
            // A failed compare leaves the word; a matching one swaps.
            StepVerifier.create(pair.client.compareAndSwap(word, 9, 100)).expectNext(3L).expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(pair.client.compareAndSwap(word, 3, 100)).expectNext(3L).expectComplete()
                    .verify(TIMEOUT);
            assertThat(region.buffer().getLong(8)).isEqualTo(100);
            // Masked: two 32-bit counters in one word; the low one wraps without carrying into the high one.
            region.buffer().setLong(16, 0x0000_0007_FFFF_FFFFL);
            StepVerifier.create(pair.client.fetchAdd(region.remote().slice(16, 8), 0x0000_0001_0000_0001L,
                    0x8000_0000_8000_0000L)).expectNext(0x0000_0007_FFFF_FFFFL).expectComplete().verify(TIMEOUT);
            assertThat(region.buffer().getLong(16)).isEqualTo(0x0000_0008_0000_0000L);
            StepVerifier.create(pair.client.compareAndSwap(region.remote().slice(16, 8), 0x0000_0008_0000_0000L,
                    0xFFFF_FFFF_0000_0000L, 0x1234L, 0xFFFFL)).expectNext(0x0000_0008_0000_0000L).expectComplete()
                    .verify(TIMEOUT);
            assertThat(region.buffer().getLong(16)).isEqualTo(0x0000_0008_0000_1234L);
            region.dispose();
        }
    }

    @Test
    void invalidArgumentsFailFastWithWhatToFix() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            RemoteMemory region = new RemoteMemory(0x100, 0, 64);
            StepVerifier.create(pair.client.fetchAdd(region.slice(4, 8), 1))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("8-octet aligned"))
                    .verify(TIMEOUT);
            StepVerifier.create(pair.client.compareAndSwap(region.slice(8, 4), 0, 1))
                    .expectError(IllegalArgumentException.class).verify(TIMEOUT);
        }
    }

    @Test
    void anAtomicOnAWordWithoutRemoteAtomicFailsWithTheTerminate() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            LocalRegion region = pair.serverSession.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            StepVerifier.create(pair.client.fetchAdd(region.remote().slice(0, 8), 1))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RdmaOperationException.class)
                            .hasRootCauseInstanceOf(io.softrdma.rdmap.TerminateException.class)
                            .rootCause().hasMessageContaining("PROTECTION_ACCESS_RIGHTS"))
                    .verify(TIMEOUT);
            region.dispose();
        }
    }

    @Test
    void aPeerThatDidNotAgreeIsNeverSentAnExtension() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c.withExtensions(RdmapExtensions.NONE))) {
            assertThat(pair.client.extensions()).isEqualTo(RdmapExtensions.NONE);
            StepVerifier.create(pair.client.fetchAdd(new RemoteMemory(1, 0, 8), 1))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("did not agree to RFC 7306"))
                    .verify(TIMEOUT);
            StepVerifier.create(pair.client.writeWithImmediate(new RemoteMemory(1, 0, 8), Unpooled.buffer(1)
                    .writeByte(1), 7)).expectError(IllegalStateException.class).verify(TIMEOUT);
            // The session itself is untouched.
            assertThat(pair.client.isDisposed()).isFalse();
        }
    }

    /**
     * The concurrency test: several clients, each on its own connection (and protection domain at the
     * server), hammer one 64-bit word the server registered for each of them over the same memory. Every
     * Fetch-and-Add must see a distinct value and the word must end at the total: the operations are
     * linearizable across connections.
     */
    @Test
    void rfc7306AtomicityACounterSharedByFourConnectionsGivesEachValueOnce() throws Exception {
        int clients = 4;
        int perClient = 2_500;
        ByteBuf shared = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64).writeZero(64);
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).handle(session -> {
            LocalRegion region = session.register(shared, Access.LOCAL_WRITE,
                    Access.REMOTE_ATOMIC);
            session.respond(request -> {
                RemoteMemory r = region.remote();
                return Mono.just(Unpooled.buffer(16).writeInt(r.stag()).writeLong(r.taggedOffset())
                        .writeInt((int) r.length()));
            }, 1);
            return session.onDispose().doFinally(s -> region.dispose());
        }).bindNow();
        List<RdmaSession> sessions = new ArrayList<>();
        try {
            ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
            List<Mono<Void>> runs = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                RdmaSession s = RdmaClient.create().host("127.0.0.1").port(server.port()).connect().block(TIMEOUT);
                sessions.add(s);
                RemoteMemory remote = s.request(Unpooled.buffer(1).writeByte(0)).map(b -> new RemoteMemory(b.readInt(), b.readLong(), b.readInt())).block(TIMEOUT);
                RemoteMemory word = remote.slice(8, 8);
                runs.add(Flux.range(0, perClient).flatMap(n -> s.fetchAdd(word, 1), 32).doOnNext(seen::add)
                        .then().subscribeOn(Schedulers.parallel()));
            }
            Mono.when(runs).block(TIMEOUT);
            assertThat(shared.getLong(8)).isEqualTo((long) clients * perClient);
            BitSet values = new BitSet();
            for (long v : seen) {
                assertThat(values.get((int) v)).as("value %d seen twice", v).isFalse();
                values.set((int) v);
            }
            assertThat(values.cardinality()).isEqualTo(clients * perClient);
            assertThat(values.nextClearBit(0)).isEqualTo(clients * perClient);
        } finally {
            sessions.forEach(s -> {
                s.dispose();
                s.onDispose().block(TIMEOUT);
            });
            server.disposeNow(TIMEOUT);
            shared.release();
        }
    }

    @Test
    void rfc7306CompareAndSwapLoopsOverTwoConnectionsLoseNoUpdate() throws Exception {
        try (SessionPair a = new SessionPair(c -> c); SessionPair b = new SessionPair(c -> c)) {
            // Two servers in one JVM over the same memory: atomicity holds across devices too.
            ByteBuf shared = PooledByteBufAllocator.DEFAULT.directBuffer(8, 8).writeZero(8);
            LocalRegion ra = a.serverSession.register(shared, Access.LOCAL_WRITE,
                    Access.REMOTE_ATOMIC);
            LocalRegion rb = b.serverSession.register(shared, Access.LOCAL_WRITE,
                    Access.REMOTE_ATOMIC);
            int each = 300;
            CopyOnWriteArrayList<Long> won = new CopyOnWriteArrayList<>();
            Mono<Void> runA = casIncrements(a.client, ra.remote(), each, won).subscribeOn(Schedulers.parallel());
            Mono<Void> runB = casIncrements(b.client, rb.remote(), each, won).subscribeOn(Schedulers.parallel());
            Mono.when(runA, runB).block(TIMEOUT);
            assertThat(shared.getLong(0)).isEqualTo(2L * each);
            assertThat(won).doesNotHaveDuplicates().hasSize(2 * each);
            ra.dispose();
            rb.dispose();
            shared.release();
        }
    }

    /** Increments by compare-and-swap until {@code count} swaps succeeded, recording each value it replaced. */
    private static Mono<Void> casIncrements(RdmaSession s, RemoteMemory word, int count, List<Long> won) {
        long[] expect = {0};
        int[] done = {0};
        return Mono.defer(() -> s.compareAndSwap(word, expect[0], expect[0] + 1)).flatMap(before -> {
            if (before == expect[0]) {
                won.add(before);
                done[0]++;
                expect[0] = before + 1;
            } else {
                expect[0] = before;
            }
            return Mono.just(done[0]);
        }).repeat(() -> done[0] < count).then();
    }

    @Test
    void rfc7306WriteWithImmediateIsSeenAfterItsOctetsArePlacedInOrder() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            int count = 500;
            LocalRegion region = pair.serverSession.allocate(8 * count, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            List<Long> immediates = new CopyOnWriteArrayList<>();
            List<String> problems = new CopyOnWriteArrayList<>();
            // A slow consumer: one at a time, so the credits (not a queue) hold the writer back.
            pair.serverSession.immediates().limitRate(1).doOnNext(i -> {
                if (region.buffer().getLong((int) (8 * i)) != i * 31) {
                    problems.add("slot " + i + " not yet placed when its Immediate Data arrived");
                }
                immediates.add(i);
            }).subscribe();
            Flux.range(0, count).concatMap(i -> pair.client.writeWithImmediate(region.remote().slice(8L * i, 8),
                    Unpooled.directBuffer(8).writeLong(i * 31L), i)).then().block(TIMEOUT);
            await().atMost(TIMEOUT).until(() -> immediates.size() >= count);
            assertThat(problems).isEmpty();
            assertThat(immediates).hasSize(count);
            for (int i = 0; i < count; i++) {
                assertThat(immediates.get(i)).isEqualTo(i);
            }
            // Messages still flow alongside: the Immediate Data spent credits that came back.
            pair.serverSession.respond(r -> Mono.just(r), 1);
            StepVerifier.create(pair.client.request(Unpooled.buffer(2).writeShort(7)).map(b -> {
                int v = b.readShort();
                return v;
            })).expectNext(7).expectComplete().verify(TIMEOUT);
            region.dispose();
        }
    }

    @Test
    void writeWithImmediateWithoutASubscriberWaitsForCreditsAndLosesNothing() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            LocalRegion region = pair.serverSession.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            // No immediates() subscriber yet: only the reserve of credits exists, so a few go and the rest wait.
            List<Mono<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                writes.add(pair.client.writeWithImmediate(region.remote().slice(0, 8),
                        Unpooled.directBuffer(8).writeLong(i), i));
            }
            Mono<Void> all = Mono.when(writes).cache();
            all.subscribe(v -> { }, e -> { });
            // A Read posted after them returns only once the server has taken in all that went before it on the
            // stream: a Write with Immediate Data sent without a credit would have found no receive buffer there,
            // and the server would have Terminated the stream instead of answering.
            pair.client.read(region.remote().slice(8, 8)).block(TIMEOUT);
            assertThat(pair.client.isDisposed()).isFalse();
            assertThat(all.toFuture()).as("the Writes beyond the reserve wait for credits").isNotDone();
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < 20; i++) {
                expected.add(i);
            }
            StepVerifier.create(pair.serverSession.immediates().take(20).collectList())
                    .assertNext(l -> assertThat(l).containsExactlyElementsOf(expected))
                    .expectComplete().verify(TIMEOUT);
            all.block(TIMEOUT);
            region.dispose();
        }
    }
}
