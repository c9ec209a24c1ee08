package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.cm.ConnectRequest;
import io.softrdma.mpa.MpaRejectedException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * RdmaServer.accept takes an asynchronous decision (RFC 5044 §7.1.2: the responder's consumer accepts, or
 * rejects with private data in a Reply with the Reject bit), within MpaSettings.acceptTimeout.
 */
class RdmaAcceptDecisionTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static RdmaClient clientOf(DisposableRdmaServer server) {
        return RdmaClient.create().host("127.0.0.1").port(server.port());
    }

    @Test
    void theDecisionMayComeLaterFromAnotherThread() throws Exception {
        CountDownLatch decide = new CountDownLatch(1);
        CompletableFuture<String> askedOn = new CompletableFuture<>();
        CompletableFuture<String> decidedOn = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).accept(request -> {
            // The client's private data, after SoftRDMA's RFC 8797 block (and before its RFC 7306 offer).
            askedOn.complete(Thread.currentThread().getName() + " " + utf8(request.privateData()));
            return Mono.fromCallable(() -> {
                decide.await();
                decidedOn.complete(Thread.currentThread().getName());
                return ConnectDecision.accept(utf8("welcome"));
            }).subscribeOn(Schedulers.boundedElastic());
        }).bindNow();
        try {
            CompletableFuture<RdmaSession> connecting = clientOf(server).privateData(utf8("hello")).connect().toFuture();
            // The server has the Request and waits for the decision: no Reply yet, so no session.
            assertThat(askedOn.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).contains("hello");
            assertThat(connecting).isNotDone();
            decide.countDown();
            RdmaSession client = connecting.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            try {
                assertThat(decidedOn.get()).startsWith("boundedElastic").isNotEqualTo(askedOn.get().split(" ")[0]);
                // After SoftRDMA's RFC 8797 block (and before its RFC 7306 answer), the decision's private data.
                assertThat(utf8(client.connection().peerPrivateData())).contains("welcome");
                // The server counts the session once its side is in RDMA mode, which may follow the client's.
                org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> server.sessionCount() == 1);
            } finally {
                client.dispose();
                client.onDispose().block(TIMEOUT);
            }
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aRejectCarriesItsPrivateDataToTheClientsError() {
        CountDownLatch decide = new CountDownLatch(1);
        byte[] binary = {0, 1, 2, (byte) 0xFF};
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).accept(request ->
                Mono.fromCallable(() -> {
                    decide.await();
                    return utf8(request.privateData()).contains("binary") ? ConnectDecision.reject(binary)
                            : ConnectDecision.reject("quota exceeded");
                }).subscribeOn(Schedulers.boundedElastic())).bindNow();
        try {
            decide.countDown();
            StepVerifier.create(clientOf(server).privateData(utf8("tenant-7")).connect())
                    .expectErrorSatisfies(t -> assertThat(t).isInstanceOfSatisfying(MpaRejectedException.class,
                            r -> assertThat(utf8(r.privateData())).isEqualTo("quota exceeded")))
                    .verify(TIMEOUT);
            StepVerifier.create(clientOf(server).privateData(utf8("binary")).connect())
                    .expectErrorSatisfies(t -> assertThat(t).isInstanceOfSatisfying(MpaRejectedException.class,
                            r -> assertThat(r.privateData()).containsExactly(binary)))
                    .verify(TIMEOUT);
            assertThat(server.sessionCount()).isZero();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aDecisionThatNeverComesIsRejectedAtTheAcceptTimeoutAndCancelled() throws Exception {
        CountDownLatch cancelled = new CountDownLatch(1);
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0)
                .mpa(m -> m.withAcceptTimeout(Duration.ofMillis(300)))
                .accept(request -> Mono.<ConnectDecision>never().doOnCancel(cancelled::countDown)).bindNow();
        try {
            long start = System.nanoTime();
            StepVerifier.create(clientOf(server).connect())
                    .expectErrorSatisfies(t -> assertThat(t).isInstanceOfSatisfying(MpaRejectedException.class,
                            r -> assertThat(utf8(r.privateData()))
                                    .isEqualTo("no accept decision within 300 ms (MpaSettings.acceptTimeout)")))
                    .verify(TIMEOUT);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            assertThat(cancelled.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the decision's Mono cancelled")
                    .isTrue();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    static Stream<Arguments> decisionsThatGoWrong() {
        return Stream.of(
                Arguments.of("an error", (Function<ConnectRequest, Mono<ConnectDecision>>) r ->
                        Mono.error(new IllegalStateException("the database is down")), "accept decision failed"),
                Arguments.of("an error later", (Function<ConnectRequest, Mono<ConnectDecision>>) r ->
                        Mono.<ConnectDecision>error(new IllegalStateException("the database is down"))
                                .subscribeOn(Schedulers.boundedElastic()), "accept decision failed"),
                Arguments.of("a thrown exception", (Function<ConnectRequest, Mono<ConnectDecision>>) r -> {
                    throw new IllegalStateException("the database is down");
                }, "accept decision failed"),
                Arguments.of("null", (Function<ConnectRequest, Mono<ConnectDecision>>) r -> null,
                        "accept decision failed"),
                Arguments.of("an empty Mono", (Function<ConnectRequest, Mono<ConnectDecision>>) r -> Mono.empty(),
                        "no accept decision"),
                Arguments.of("private data too long to accept with",
                        (Function<ConnectRequest, Mono<ConnectDecision>>) r ->
                                Mono.just(ConnectDecision.accept(new byte[600])),
                        "accept decision invalid: its private data does not fit the MPA Reply"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decisionsThatGoWrong")
    void aDecisionThatGoesWrongRejectsWithAReasonAndKeepsTheErrorToItself(String what,
            Function<ConnectRequest, Mono<ConnectDecision>> decide, String reason) {
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).accept(decide).bindNow();
        try {
            StepVerifier.create(clientOf(server).connect())
                    .expectErrorSatisfies(t -> assertThat(t).isInstanceOfSatisfying(MpaRejectedException.class,
                            r -> assertThat(utf8(r.privateData())).isEqualTo(reason)))
                    .verify(TIMEOUT);
            // The server goes on: the next connection gets the same answer, not a hang.
            StepVerifier.create(clientOf(server).connect()).expectError(MpaRejectedException.class).verify(TIMEOUT);
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aConnectionThatClosesWhileItsDecisionIsAwaitedCancelsIt() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).accept(request -> {
            asked.countDown();
            return Mono.<ConnectDecision>never().doOnCancel(cancelled::countDown);
        }).bindNow();
        try {
            // The client gives up on the Reply long before the server's accept timeout, and closes.
            StepVerifier.create(clientOf(server).mpa(m -> m.withReplyTimeout(Duration.ofMillis(200))).connect())
                    .expectError().verify(TIMEOUT);
            assertThat(asked.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(cancelled.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the decision's Mono cancelled")
                    .isTrue();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void theDefaultAcceptsEveryConnection() {
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).bindNow();
        try {
            RdmaSession client = clientOf(server).connect().block(TIMEOUT);
            client.dispose();
            client.onDispose().block(TIMEOUT);
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }
}
