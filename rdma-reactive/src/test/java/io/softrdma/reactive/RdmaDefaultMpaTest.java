package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.mpa.ReadyToReceive;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

/**
 * One MPA default for client and server (RdmaSessionConfig.DEFAULT_MPA): with it the server may speak first,
 * which needs RFC 6581's ready-to-receive message, since a responder may send no FPDU before the initiator's
 * first (RFC 5044 §7.1.2).
 */
class RdmaDefaultMpaTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String GREETING = "the server speaks first";
    private static final String WRITTEN = "and writes first";

    @Test
    void clientAndServerStartFromTheSameMpaSettings() {
        MpaSettings client = RdmaClient.create().configuration().session().mpa();
        MpaSettings server = RdmaServer.create().configuration().session().mpa();
        assertThat(client).isSameAs(server).isSameAs(RdmaSessionConfig.DEFAULT_MPA).isSameAs(RdmaClient.DEFAULT_MPA);
        assertThat(client.revision()).isEqualTo(MpaSettings.REVISION_2);
        assertThat(client.crc()).isTrue();
        assertThat(client.peerToPeer()).isEqualTo(PeerToPeerMode.ANY);
    }

    @Test
    void mpaWithAFunctionChangesOneSettingAndKeepsPeerToPeerModeWhileMpaWithSettingsReplacesThemAll() {
        MpaSettings changed = RdmaClient.create().mpa(m -> m.withCrc(false)).configuration().session().mpa();
        assertThat(changed).isEqualTo(RdmaSessionConfig.DEFAULT_MPA.withCrc(false));
        assertThat(changed.peerToPeer()).isEqualTo(PeerToPeerMode.ANY);
        // The function gets the settings so far, not the default again.
        MpaSettings twice = RdmaServer.create().mpa(m -> m.withCrc(false))
                .mpa(m -> m.withAcceptTimeout(Duration.ofSeconds(2))).configuration().session().mpa();
        assertThat(twice.crc()).isFalse();
        assertThat(twice.acceptTimeout()).isEqualTo(Duration.ofSeconds(2));
        // As documented: whole settings replace the default, its peer-to-peer mode included.
        assertThat(RdmaClient.create().mpa(MpaSettings.defaults().withCrc(false)).configuration().session().mpa()
                .peerToPeer()).isEqualTo(PeerToPeerMode.OFF);
    }

    @Test
    void rfc6581Section4WithTheDefaultsTheServerSendsBeforeTheClientHasSentAnything() throws Exception {
        serverSpeaksFirst(RdmaClient.create(), ReadyToReceive.WRITE);
    }

    @Test
    void aClientThatTurnsCrcOffWithTheFunctionStillLetsTheDefaultServerSpeakFirst() throws Exception {
        serverSpeaksFirst(RdmaClient.create().mpa(m -> m.withCrc(false)), ReadyToReceive.WRITE);
    }

    /** The default server accepts any RTR a peer offers (Linux siw's peer_to_peer=1 offers both). */
    @ParameterizedTest
    @EnumSource(value = PeerToPeerMode.class, names = {"WRITE", "READ", "ANY"})
    void rfc6581Section5TheDefaultServerAcceptsEveryRtrOffer(PeerToPeerMode offer) throws Exception {
        serverSpeaksFirst(RdmaClient.create().mpa(m -> m.withPeerToPeer(offer)),
                offer == PeerToPeerMode.READ ? ReadyToReceive.READ : ReadyToReceive.WRITE);
    }

    /**
     * The server Sends a message and RDMA-Writes into a region of the client's as soon as it has the session
     * (and, for the Write, the region's address, handed over inside this test), and both complete at the
     * server before the client has sent anything but its RTR: without the RTR they would be held back until
     * the client's first FPDU. Only then does the client read its region and subscribe to its messages.
     */
    private static void serverSpeaksFirst(RdmaClient configured, ReadyToReceive expectedRtr) throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        CompletableFuture<RemoteMemory> clientRegion = new CompletableFuture<>();
        CompletableFuture<Void> sent = new CompletableFuture<>();
        CompletableFuture<Void> written = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).handle(session -> {
            accepted.complete(session);
            Mono<Void> send = session.send(Mono.fromSupplier(() -> utf8(GREETING)))
                    .doOnSuccess(v -> sent.complete(null)).doOnError(sent::completeExceptionally);
            Mono<Void> write = Mono.fromFuture(clientRegion).flatMap(remote -> session.write(remote, utf8(WRITTEN)))
                    .doOnSuccess(v -> written.complete(null)).doOnError(written::completeExceptionally);
            return Mono.when(send, write).then(session.onDispose());
        }).bindNow();
        try {
            RdmaSession client = configured.host("127.0.0.1").port(server.port()).connect().block(TIMEOUT);
            LocalRegion region = client.allocate(WRITTEN.length(), Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            try {
                clientRegion.complete(region.remote());
                sent.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                written.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                // The server's Write completes once handed to TCP (RFC 5040 §5.5 rule 14), not once placed here.
                await().atMost(TIMEOUT).untilAsserted(() -> assertThat(region.buffer().toString(0, WRITTEN.length(),
                        StandardCharsets.UTF_8)).isEqualTo(WRITTEN));
                String received = client.receive().next().map(RdmaDefaultMpaTest::text).block(TIMEOUT);
                assertThat(received).isEqualTo(GREETING);
                RdmaSession serverSession = accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat(client.connection().readyToReceive()).isEqualTo(expectedRtr);
                assertThat(serverSession.connection().readyToReceive()).isEqualTo(expectedRtr);
            } finally {
                region.dispose();
                client.dispose();
                client.onDispose().block(TIMEOUT);
            }
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    private static ByteBuf utf8(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
