package io.softrdma.rsocket;

import static io.softrdma.rsocket.Payloads.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.core.Resume;
import io.rsocket.exceptions.ConnectionErrorException;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.testing.Snippets;
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
import reactor.util.retry.Retry;

/**
 * The code examples of docs/rsocket.md and of this module's Javadoc are regions of this test ({@code // tag::name[]}),
 * word for word, and run here against 127.0.0.1. rdma-reactive's DocumentationExamplesTest checks every document of
 * the build the same way; this one checks this module's documents in this module's own build.
 */
class DocumentationExamplesTest {
    private static final Duration TIMEOUT = RSocketPair.TIMEOUT;
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyExampleOfTheRSocketDocsAndJavadocIsATestedRegion() throws Exception {
        List<Path> testRoots = new ArrayList<>();
        try (Stream<Path> modules = Stream.concat(Files.list(ROOT), Files.list(ROOT.resolve("samples")))) {
            modules.filter(Files::isDirectory).sorted().forEach(m -> testRoots.add(m.resolve("src/test/java")));
        }
        List<Path> documents = new ArrayList<>(Snippets.files(Path.of("src/main/java"), ".java"));
        documents.add(ROOT.resolve("docs/rsocket.md"));
        assertThat(documents.get(documents.size() - 1)).exists();
        Map<String, String> regions = Snippets.regions(testRoots);
        assertThat(Snippets.markdownExamples(ROOT.resolve("docs/rsocket.md"))).as("examples in docs/rsocket.md")
                .isNotEmpty();
        assertThat(Snippets.undocumented(documents, regions))
                .as("examples that no test region holds word for word: copy each from a test's"
                        + " // tag::name[] ... // end::name[] region, so that it compiles and runs")
                .isEmpty();
    }

    @Test
    void theServerAndClientExamplesRun() throws Exception {
        String host = "127.0.0.1";
        int port = freePort();
        RSocket handler = new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                return Mono.just(text("hello, " + Payloads.utf8(p)));
            }
        };
        // tag::rsocket-server[]
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(handler))
                .bind(RdmaServerTransport.create(host, port)).block();
        // end::rsocket-server[]
        try {
            // tag::rsocket-client[]
            RSocket rsocket = RSocketConnector.connectWith(RdmaClientTransport.create(host, port)).block();
            // end::rsocket-client[]
            try {
                assertThat(rsocket.requestResponse(text("RDMA")).map(Payloads::utf8).block(TIMEOUT))
                        .isEqualTo("hello, RDMA");
            } finally {
                rsocket.dispose();
            }
            // tag::rsocket-configured[]
            RdmaClient rdma = RdmaClient.create().host(host).port(port)
                    .messaging(RSocketMessaging.DEFAULTS.withMaxMessageSize(1024 * 1024)); // frames up to 1 MiB
            RSocket small = RSocketConnector.connectWith(RdmaClientTransport.create(rdma)).block();
            // end::rsocket-configured[]
            try {
                assertThat(RdmaClientTransport.create(rdma).maxFrameLength()).isEqualTo(1024 * 1024);
                assertThat(small.requestResponse(text("1 MiB")).map(Payloads::utf8).block(TIMEOUT))
                        .isEqualTo("hello, 1 MiB");
            } finally {
                small.dispose();
            }
        } finally {
            // tag::rsocket-drain[]
            server.disposeGracefully(Duration.ofSeconds(30)).block(); // each connection sends what it queued
            // end::rsocket-drain[]
        }
        assertThat(server.isDisposed()).isTrue();
    }

    @Test
    void theTypedErrorExampleRuns() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload p) {
                p.release();
                return Flux.concat(Mono.just(text("first")), Flux.never());
            }
        })) {
            RSocket rsocket = pair.client;
            Payload request = text("orders");
            // tag::rsocket-connection-error[]
            Flux<String> orders = rsocket.requestStream(request).map(Payload::getDataUtf8)
                    .onErrorResume(ConnectionErrorException.class,  // the RDMA connection was lost, or
                            e -> Flux.just("ended: " + e.getMessage())); // a Terminate ended it
            // end::rsocket-connection-error[]
            List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            reactor.core.Disposable d = orders.subscribe(seen::add);
            org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> seen.contains("first"));
            pair.serverConnection().session().connection().channel().close();
            org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> seen.size() == 2);
            assertThat(seen.get(1)).startsWith("ended: the RDMA connection was lost: ");
            d.dispose();
        }
    }

    @Test
    void theResumeExampleRuns() throws Exception {
        String host = "127.0.0.1";
        int port = freePort();
        RSocket handler = new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                return Mono.just(p);
            }
        };
        // tag::rsocket-resume[]
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(handler))
                .resume(new Resume().sessionDuration(Duration.ofMinutes(2)))
                .bind(RdmaServerTransport.create(RdmaServer.create().host(host).port(port))).block();
        RSocket rsocket = RSocketConnector.create()
                .resume(new Resume().retry(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(500))))
                .connect(RdmaClientTransport.create(host, port)).block();
        // end::rsocket-resume[]
        try {
            assertThat(rsocket.requestResponse(text("again")).map(Payloads::utf8).block(TIMEOUT)).isEqualTo("again");
        } finally {
            rsocket.dispose();
            server.dispose();
            server.onClose().block(TIMEOUT);
        }
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
