package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * What the reactive API puts on the wire, seen by a relay that parses the stream ({@link WireTap}) rather
 * than by either side's own counters: the ORD bound (RFC 5040 §6.1) however much is requested, and
 * stream messages packed into few Sends.
 */
class OnTheWireTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int ORD = 4;

    private DisposableRdmaServer server;
    private WireTap tap;
    private RdmaSession client;
    private RdmaSession serverSession;

    @BeforeEach
    void connect() throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        server = RdmaServer.create().host("127.0.0.1").port(0).queuePair(c -> c.withReadDepths(16, 16))
                .handle(session -> {
                    accepted.complete(session);
                    return session.onDispose();
                }).bindNow();
        tap = new WireTap(server.port());
        client = RdmaClient.create().host("127.0.0.1").port(tap.port())
                .queuePair(c -> c.withReadDepths(ORD, ORD)).connect().block(TIMEOUT);
        serverSession = accepted.get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        client.dispose();
        client.onDispose().block(TIMEOUT);
        serverSession.onDispose().block(TIMEOUT);
        server.disposeNow(TIMEOUT);
        tap.close();
        assertThat(tap.failure).as("the relay parsed the whole stream").isNull();
    }

    @Test
    void rfc5040Section6_1AFluxOfReadsKeepsOrdOutstandingOnTheWireWhateverIsRequested() {
        assertThat(client.ord()).isEqualTo(ORD);
        LocalRegion region = serverSession.allocate(1 << 16, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        // Unbounded demand downstream: the Flux still keeps at most ORD Read Requests out.
        StepVerifier.create(client.read(Flux.range(0, 400).map(i -> remote.slice((i % 64) * 1024L, 1024))).count())
                .expectNext(400L).expectComplete().verify(TIMEOUT);
        assertThat(tap.readRequests.get()).isEqualTo(400);
        assertThat(tap.mostReadsOutstanding.get()).as("Read Requests out before their response came back")
                .isEqualTo(ORD);
        region.dispose();
    }

    @Test
    void rfc5040Section6_1ManySingleReadsAtOnceStillKeepOrdOutstandingOnTheWire() {
        LocalRegion region = serverSession.allocate(1 << 16, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        // 200 independent Monos subscribed at once: the queue pair holds all but ORD back (RFC 5040 §6.1).
        StepVerifier.create(Flux.range(0, 200).flatMap(i -> client.read(remote.slice((i % 64) * 1024L, 1024)), 200).count())
                .expectNext(200L).expectComplete().verify(TIMEOUT);
        assertThat(tap.readRequests.get()).isEqualTo(200);
        assertThat(tap.mostReadsOutstanding.get()).isEqualTo(ORD);
        region.dispose();
    }

    @Test
    void streamMessagesQueuedBehindEachOtherGoPackedIntoFewSends() {
        int count = 10_000;
        int sendsBefore = tap.initiatorSends.get();
        Mono<Void> sending = client.send(Flux.range(0, count).map(i -> Unpooled.directBuffer(8).writeLong(i)));
        StepVerifier.create(Flux.merge(sending.then(Mono.<Long>empty()), serverSession.receive().map(b -> b.readLong())).take(count).index().filter(t -> t.getT1().longValue() != t.getT2().longValue()).count())
                .expectNext(0L).as("every message, in order").expectComplete().verify(TIMEOUT);
        int sends = tap.initiatorSends.get() - sendsBefore;
        // A 4 KiB Send holds (4096 - 8) / (4 + 8) = 340 of them; a Send a message would be 10 000.
        assertThat(sends).as("Sends for %d messages", count).isGreaterThanOrEqualTo(count / 340)
                .isLessThan(count / 10);
    }
}
