package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * MPA over TLS through reactor-netty's {@code secure(...)}: not iWARP on the wire, for SoftRDMA peers on
 * untrusted networks. Writes, Reads and Sends complete as over plain TCP — their completions wait for TCP
 * through the TLS handler ({@link io.softrdma.cm.RdmaPipeline#addTlsBarrier}).
 */
class TlsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void writesReadsAndMessagesWorkOverTls() throws Exception {
        SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
        SslContext serverContext = SslContextBuilder.forServer(cert.certificate(), cert.privateKey()).build();
        SslContext clientContext = SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .build();
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0)
                .tcpConfiguration(t -> t.secure(spec -> spec.sslContext(serverContext)))
                .handle(session -> {
                    accepted.complete(session);
                    session.respond(Mono::just, 4);
                    return session.onDispose();
                }).bindNow();
        try {
            RdmaSession client = RdmaClient.create().host("127.0.0.1").port(server.port())
                    .tcpConfiguration(t -> t.secure(spec -> spec.sslContext(clientContext))).connect().block(TIMEOUT);
            RdmaSession serverSession = accepted.get(10, TimeUnit.SECONDS);
            assertThat(client.connection().channel().pipeline().get(io.netty.handler.ssl.SslHandler.class)).isNotNull();
            LocalRegion region = serverSession.allocate(1 << 20, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            RemoteMemory remote = region.remote();
            byte[] data = new byte[1 << 20];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 31);
            }
            // 64 MiB of Writes in flight at once: TCP backs up, so their completions wait behind the TLS handler
            // for a write barrier (RFC 5040 §5.5 rule 14), then the last one leaves the data to read back.
            StepVerifier.create(Flux.range(0, 64).flatMap(i -> client.write(remote, Unpooled.wrappedBuffer(data)), 64)
                    .then()).expectComplete().verify(TIMEOUT);
            StepVerifier.create(client.read(remote).map(b -> {
                byte[] back = new byte[b.readableBytes()];
                b.readBytes(back);
                return java.util.Arrays.equals(back, data);

            })).expectNext(true).expectComplete().verify(TIMEOUT);
            StepVerifier.create(Flux.range(0, 200).flatMap(i -> client.request(
                    Unpooled.copiedBuffer("m" + i, StandardCharsets.US_ASCII)).map(TlsTest::text), 16).count())
                    .expectNext(200L).expectComplete().verify(TIMEOUT);
            region.dispose();
            client.dispose();
            client.onDispose().block(TIMEOUT);
        } finally {
            server.disposeNow(TIMEOUT);
            cert.delete();
        }
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.US_ASCII);
    }
}
