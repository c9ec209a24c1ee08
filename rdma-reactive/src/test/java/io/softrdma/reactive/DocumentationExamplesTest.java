package io.softrdma.reactive;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.testing.Snippets;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every code example in README.md, docs/, the samples' READMEs and the Javadoc of the modules' main code is a region
 * of a test ({@code // tag::name[]}), word for word: so it compiles, and runs where the test runs it. The examples of
 * the Reactor façade run here, against loopback; those of other modules run in their own modules' tests.
 */
class DocumentationExamplesTest {
    private static final Duration TIMEOUT = SessionPair.TIMEOUT;
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyExampleInTheDocsAndJavadocIsATestedRegion() throws Exception {
        List<Path> testRoots = new ArrayList<>();
        List<Path> documents = new ArrayList<>();
        try (Stream<Path> modules = Stream.concat(Files.list(ROOT), Files.list(ROOT.resolve("samples")))) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                testRoots.add(module.resolve("src/test/java"));
                documents.addAll(Snippets.files(module.resolve("src/main/java"), ".java"));
                if (Files.exists(module.resolve("README.md")) && !module.equals(ROOT)) {
                    documents.add(module.resolve("README.md"));
                }
            }
        }
        documents.add(ROOT.resolve("README.md"));
        documents.addAll(Snippets.files(ROOT.resolve("docs"), ".md"));
        Map<String, String> regions = Snippets.regions(testRoots);
        assertThat(regions).as("regions found under %s", testRoots).isNotEmpty();
        assertThat(Snippets.undocumented(documents, regions))
                .as("examples that no test region holds word for word: copy each from a test's"
                        + " // tag::name[] ... // end::name[] region, so that it compiles and runs")
                .isEmpty();
    }

    @Test
    void theReactorFacadeExampleRuns() throws Exception {
        String host = "127.0.0.1";
        int port = freePort();
        {
            RdmaSession client;
            // tag::reactor-facade[]
            DisposableRdmaServer server = RdmaServer.create().port(port)
                    .handle(session -> {
                        session.respond(request -> Mono.just(request), 16);      // echo requests
                        return session.receive().map(m -> m.readLong()).then(); // and consume messages
                    })
                    .bindNow();

            RdmaSession session = RdmaClient.create().host(host).port(port).connect().block();
            session.send(Flux.range(0, 1000).map(i -> Unpooled.buffer(8).writeLong(i))).block(); // by credit
            String answer = session.request(Unpooled.copiedBuffer("hello", UTF_8))
                    .map(reply -> reply.toString(UTF_8)).block();  // valid in map: the library releases it
            // end::reactor-facade[]
            client = session;
            try {
                assertThat(answer).isEqualTo("hello");
            } finally {
                client.dispose();
                client.onDispose().block(TIMEOUT);
                server.disposeNow(TIMEOUT);
            }
        }
    }

    @Test
    void theMemoryExampleRuns() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            LocalRegion lent = pair.serverSession.allocate(4096, Access.REMOTE_READ);
            lent.buffer().setLong(0, 42L);
            RemoteMemory peerRegion = lent.remote();
            RdmaSession session = pair.client;
            // tag::reactor-memory[]
            LocalRegion region = session.allocate(1 << 20, Access.REMOTE_READ);  // send region.remote() over
            Flux<Long> words = session.read(Flux.just(peerRegion))               // at most ORD at once
                    .map(data -> data.getLong(0));                               // valid in map, then released
            // end::reactor-memory[]
            assertThat(words.collectList().block(TIMEOUT)).containsExactly(42L);
            assertThat(region.remote().length()).isEqualTo(1 << 20);
            region.dispose();
            lent.dispose();
        }
    }

    @Test
    void theAtomicsExampleRuns() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            RdmaSession session = pair.serverSession;
            RdmaSession client = pair.client;
            LocalRegion target = session.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            RemoteMemory peerRegion = target.remote();
            ByteBuf data = Unpooled.copiedBuffer("landed", UTF_8);
            Mono<Long> firstImmediate = session.immediates().next();
            // tag::rfc7306-example[]
            LocalRegion counter = session.allocate(8, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC); // at the server
            RemoteMemory counterWord = counter.remote();                      // advertised to the client
            long before = client.fetchAdd(counterWord, 1).block();            // a 64-bit word, 8-octet aligned
            long seen = client.compareAndSwap(counterWord, before + 1, 0).block();
            client.writeWithImmediate(peerRegion, data, 42L).block();         // peer: session.immediates() emits 42
            // end::rfc7306-example[]
            assertThat(before).isZero();
            assertThat(seen).isEqualTo(1);
            assertThat(counter.buffer().getLong(0)).isZero();
            assertThat(firstImmediate.block(TIMEOUT)).isEqualTo(42L);
            assertThat(target.buffer().toString(0, 6, UTF_8)).isEqualTo("landed");
            counter.dispose();
            target.dispose();
        }
    }

    /** A token check the accept examples call: admits the private data "let me in". */
    interface Tokens {
        Mono<Boolean> check(byte[] privateData);
    }

    @Test
    void theAcceptExamplesRun() throws Exception {
        Tokens tokens = privateData -> Mono.just(new String(privateData, UTF_8).contains("let me in"));
        RdmaServer tokenChecked =
                // tag::accept-by-token[]
                RdmaServer.create().accept(request -> tokens.check(request.privateData())   // Mono<Boolean>
                        .map(ok -> ok ? ConnectDecision.accept() : ConnectDecision.reject("bad token")))
                // end::accept-by-token[]
                ;
        DisposableRdmaServer checked = tokenChecked.host("127.0.0.1").port(0).bindNow();
        try {
            RdmaClient client = RdmaClient.create().host("127.0.0.1").port(checked.port());
            RdmaSession in = client.privateData("let me in".getBytes(UTF_8)).connect().block(TIMEOUT);
            in.dispose();
            assertThat(client.privateData("guess".getBytes(UTF_8)).connect().onErrorResume(e -> Mono.empty())
                    .block(TIMEOUT)).isNull();
        } finally {
            checked.disposeNow(TIMEOUT);
        }
        int port = freePort();
        // tag::server-javadoc[]
        DisposableRdmaServer server = RdmaServer.create().port(port)
                .accept(request -> Mono.just(request.privateData().length <= 64
                        ? ConnectDecision.accept() : ConnectDecision.reject("private data too long")))
                .handle(session -> session.onDispose())
                .bindNow();
        // end::server-javadoc[]
        try {
            String host = "127.0.0.1";
            // tag::client-javadoc[]
            RdmaSession session = RdmaClient.create().host(host).port(port)
                    .mpa(mpa -> mpa.withCrc(false))      // changes the CRC, keeps the rest of DEFAULT_MPA
                    .connect().block();
            // end::client-javadoc[]
            assertThat(session.connection().negotiation().crc()).isTrue(); // the server asked for CRC: on
            session.dispose();
            session.onDispose().block(TIMEOUT);
            assertThat(RdmaClient.create().host(host).port(port).privateData(new byte[100]).connect()
                    .map(s -> "accepted").onErrorResume(io.softrdma.mpa.MpaRejectedException.class,
                            e -> Mono.just(new String(e.privateData(), UTF_8))).block(TIMEOUT))
                    .isEqualTo("private data too long");
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
