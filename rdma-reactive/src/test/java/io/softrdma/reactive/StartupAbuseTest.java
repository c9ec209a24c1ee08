package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.mpa.MpaSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * RFC 5044 §9 (startup abuse): thousands of connections that never send an MPA Request, send one a byte at a time,
 * or send garbage. The server runs at most its cap of startups at once and closes the rest as they arrive; each
 * admitted one lasts at most the Request timeout; memory stays bounded; an established session keeps working
 * throughout; and once the abuse stops, new clients connect as before.
 */
class StartupAbuseTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int CAP = 100;
    private static final int ABUSERS = 1500;
    private static final byte[] REQUEST = "MPA ID Req Frame\u0000\u0001\u0000\u0000".getBytes(StandardCharsets.ISO_8859_1);

    @Test
    void rfc5044Section9ThousandsOfStalledSlowAndGarbageStartupsAreBoundedAndTimedOut() throws Exception {
        AtomicInteger rejected = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        RdmaMetricsRecorder recorder = new RdmaMetricsRecorder() {
            @Override
            public void startupFailed(StartupFailure failure) {
                (failure == StartupFailure.REJECTED ? rejected : failed).incrementAndGet();
            }
        };
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0)
                .mpa(MpaSettings.defaults().withRequestTimeout(Duration.ofMillis(800)))
                .maxPendingStartups(CAP).metrics(recorder).handle(session -> {
                    accepted.complete(session);
                    session.respond(Mono::just, 4);
                    return session.onDispose();
                }).bindNow();
        List<Socket> abusers = new ArrayList<>();
        try {
            RdmaSession established = RdmaClient.create().host("127.0.0.1").port(server.port()).connect()
                    .block(TIMEOUT);
            accepted.get(5, TimeUnit.SECONDS);
            long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();

            int mostPending = 0;
            for (int i = 0; i < ABUSERS; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                s.setSoLinger(true, 0);
                abusers.add(s);
                switch (i % 3) {
                    case 0 -> { } // says nothing
                    case 1 -> s.getOutputStream().write(REQUEST, 0, 1); // the first byte of a valid Request
                    default -> s.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                mostPending = Math.max(mostPending, server.startups().pending());
                if (i % 100 == 0) {
                    // The established session is unaffected.
                    assertThat(established.request(ascii("still here " + i)).map(StartupAbuseTest::text).block(TIMEOUT))
                            .isEqualTo("still here " + i);
                }
            }
            // The slow ones dribble on: one more byte each, while the server's timeout runs.
            for (int round = 2; round <= 4; round++) {
                // Pacing only: the bytes go apart, as a slow client's would. No check below depends on when they
                // arrive (one that comes after the server closed its connection is simply lost).
                Thread.sleep(100);
                for (int i = 1; i < ABUSERS; i += 3) {
                    writeQuietly(abusers.get(i), REQUEST[round]);
                }
                mostPending = Math.max(mostPending, server.startups().pending());
            }
            assertThat(mostPending).as("startups running at once").isLessThanOrEqualTo(CAP);
            assertThat(server.startups().refused()).as("connections closed at the cap").isPositive();

            // Every abusive connection is closed by the server: at once (cap, garbage) or by the Request timeout.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            for (Socket s : abusers) {
                assertThat(closedByPeer(s, deadline)).as("connection %s closed by the server", s).isTrue();
            }
            // Each count is made as its connection closes: the last may come just after the client saw the close.
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(server.startups().pending()).as("startups pending").isZero();
                assertThat(rejected.get() + failed.get()).as("every abusive connection counted").isEqualTo(ABUSERS);
            });
            assertThat(rejected.get()).isEqualTo((int) server.startups().refused());
            long directAfter = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
            assertThat(directAfter - directBefore).as("direct memory the abuse left behind")
                    .isLessThan(16L * 1024 * 1024);

            // Business as usual.
            assertThat(established.request(ascii("after")).map(StartupAbuseTest::text).block(TIMEOUT)).isEqualTo("after");
            RdmaSession fresh = RdmaClient.create().host("127.0.0.1").port(server.port()).connect().block(TIMEOUT);
            fresh.dispose();
            fresh.onDispose().block(TIMEOUT);
            established.dispose();
            established.onDispose().block(TIMEOUT);
        } finally {
            for (Socket s : abusers) {
                s.close();
            }
            server.disposeNow(TIMEOUT);
        }
    }

    private static void writeQuietly(Socket s, byte b) {
        try {
            s.getOutputStream().write(b);
        } catch (IOException closedAlready) {
            // the server closed it: what we want
        }
    }

    /** Whether the peer closed (EOF or reset) before the deadline. */
    private static boolean closedByPeer(Socket s, long deadline) throws IOException {
        InputStream in = s.getInputStream();
        while (System.nanoTime() < deadline) {
            s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            try {
                if (in.read() < 0) {
                    return true;
                }
            } catch (SocketException reset) {
                return true;
            } catch (java.net.SocketTimeoutException stillOpen) {
                return false;
            }
        }
        return false;
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.US_ASCII);
    }
}
