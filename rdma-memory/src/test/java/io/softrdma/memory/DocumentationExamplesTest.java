package io.softrdma.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.softrdma.testing.Snippets;
import java.nio.charset.StandardCharsets;
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
 * The code examples of docs/remote-memory.md and of this module's Javadoc are regions of this test
 * ({@code // tag::name[]}), word for word, and run here against 127.0.0.1.
 */
class DocumentationExamplesTest {
    private static final Duration TIMEOUT = Fixture.TIMEOUT;
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyExampleOfTheRemoteMemoryDocsAndJavadocIsATestedRegion() throws Exception {
        List<Path> testRoots = new ArrayList<>();
        try (Stream<Path> modules = Stream.concat(Files.list(ROOT), Files.list(ROOT.resolve("samples")))) {
            modules.filter(Files::isDirectory).sorted().forEach(m -> testRoots.add(m.resolve("src/test/java")));
        }
        List<Path> documents = new ArrayList<>(Snippets.files(Path.of("src/main/java"), ".java"));
        documents.add(ROOT.resolve("docs/remote-memory.md"));
        Map<String, String> regions = Snippets.regions(testRoots);
        assertThat(Snippets.markdownExamples(ROOT.resolve("docs/remote-memory.md")))
                .as("examples in docs/remote-memory.md").isNotEmpty();
        assertThat(Snippets.undocumented(documents, regions))
                .as("examples that no test region holds word for word: copy each from a test's"
                        + " // tag::name[] ... // end::name[] region, so that it compiles and runs")
                .isEmpty();
    }

    record Quote(String symbol, long cents) {
    }

    @Test
    void theServerAndClientExamplesRun() {
        String host = "127.0.0.1";
        int port = 0;
        // tag::memory-policy[]
        AccessPolicy policy = AccessPolicy.grant("orders", "prices", RegionAccess.READ)
                .or(AccessPolicy.grant("CN=pricer", "prices", RegionAccess.READ, RegionAccess.WRITE));
        // end::memory-policy[]
        policy = policy.or(AccessPolicy.grant("pricing-client", "prices", RegionAccess.READ, RegionAccess.WRITE,
                RegionAccess.ATOMIC));
        // tag::memory-server[]
        DisposableMemoryServer server = MemoryServer.create()
                .host(host).port(port)
                .region("prices", 1 << 20, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)
                .policy(policy)
                .service("reprice", (peer, request) ->                      // two-sided, runs at the owner
                        Mono.just(Unpooled.copyLong(request.readLong() * 2)))
                .bindNow();
        ServerRegion prices = server.region("prices");
        prices.putLong(64, 4200);                                         // the owner's own memory
        // end::memory-server[]
        port = server.port();
        try {
            // tag::memory-client[]
            RemoteMemory memory = RemoteMemory.builder()
                    .servers(host + ":" + port)
                    .credential("pricing-client")
                    .build();
            long price = memory.region("prices").flatMap(r -> r.getLong(64)).block();
            // end::memory-client[]
            try {
                assertThat(price).isEqualTo(4200);
                RemoteRegion region = memory.region("prices").block(TIMEOUT);
                // tag::memory-operations[]
                long cents = region.read(64, 8).map(b -> b.getLong(b.readerIndex())).block(); // valid in map
                region.write(128, Unpooled.copiedBuffer("ACME", StandardCharsets.US_ASCII)).block();
                long before = region.fetchAdd(64, 1).block();                      // RFC 7306
                long witness = region.compareAndSwap(64, 4201, 4300).block();       // 4201: swapped
                List<Long> words = region.read(Flux.range(0, 16).map(i -> new RegionSlice(i * 8L, 8)))
                        .map(b -> b.getLong(b.readerIndex())).collectList().block(); // at most ORD at once
                // end::memory-operations[]
                assertThat(cents).isEqualTo(4200);
                assertThat(before).isEqualTo(4200);
                assertThat(witness).isEqualTo(4201);
                assertThat(words).hasSize(16).element(8).isEqualTo(4300L);
                // tag::memory-records[]
                region.write(4096, new Quote("ACME", 4300)).block();               // JSON, as a versioned record
                Quote quote = region.read(4096, Quote.class).block();              // never a torn one
                // end::memory-records[]
                assertThat(quote).isEqualTo(new Quote("ACME", 4300));
                // tag::memory-revoked[]
                Mono<Long> read = memory.region("prices")
                        .flatMap(r -> r.getLong(64))
                        .retryWhen(Retry.max(1).filter(RegionRevokedException.class::isInstance));
                // end::memory-revoked[]
                prices.revoke();
                assertThat(read.block(TIMEOUT)).isEqualTo(4300);
                // tag::memory-service[]
                long doubled = memory.request("reprice", "ACME", Unpooled.copyLong(21))
                        .map(b -> b.readLong()).block();                            // valid in map
                // end::memory-service[]
                assertThat(doubled).isEqualTo(42);
            } finally {
                memory.dispose();
            }
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }
}
