package io.softrdma.memory.cache;

import static io.softrdma.memory.cache.CacheFixture.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionAccessDeniedException;
import io.softrdma.memory.RemoteMemoryException;
import io.softrdma.memory.cache.internal.TableLayout;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RdmaCache against real memory servers and cache owners on loopback: the operations, access, TTL, eviction. */
class RdmaCacheTest {
    record Book(String title, int year) {
    }

    static final AccessPolicy POLICY = AccessPolicy.grant("app", "cache.books", RegionAccess.READ, RegionAccess.WRITE)
            .or(AccessPolicy.grant("reader", "cache.books", RegionAccess.READ));

    /** A clock the test moves: owner and clients share it, as NTP-synchronised hosts would. */
    static final class TestClock extends Clock {
        final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    }

    private CacheFixture fixture;

    @AfterEach
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private RdmaCache<String, Book> books(String credential, Clock clock) {
        return RdmaCache.builder(fixture.client(credential), "books", String.class, Book.class).clock(clock).build();
    }

    @Test
    void getIsOneSidedAndSeesWhatPutStored() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(1 << 20).policy(p).build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());

        assertThat(books.get("dune").blockOptional(TIMEOUT)).isEmpty();
        books.put("dune", new Book("Dune", 1965)).block(TIMEOUT);
        assertThat(books.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965));
        books.put("dune", new Book("Dune Messiah", 1969)).block(TIMEOUT);
        assertThat(books.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune Messiah", 1969));

        assertThat(books.putIfAbsent("dune", new Book("Children of Dune", 1976)).block(TIMEOUT))
                .isEqualTo(new Book("Dune Messiah", 1969));
        assertThat(books.putIfAbsent("emma", new Book("Emma", 1815)).blockOptional(TIMEOUT)).isEmpty();
        assertThat(books.delete("dune").block(TIMEOUT)).isTrue();
        assertThat(books.delete("dune").block(TIMEOUT)).isFalse();
        assertThat(books.get("dune").blockOptional(TIMEOUT)).isEmpty();
        assertThat(books.get("emma").block(TIMEOUT)).isEqualTo(new Book("Emma", 1815));
        books.clear().block(TIMEOUT);
        assertThat(books.get("emma").blockOptional(TIMEOUT)).isEmpty();

        CacheStatistics stats = books.statistics();
        assertThat(stats.hits()).isEqualTo(3);
        assertThat(stats.misses()).isEqualTo(3);
        assertThat(stats.oneSidedGets()).isEqualTo(6);
        assertThat(stats.ownerGets()).isZero();
        assertThat(stats.puts()).isEqualTo(3);
        assertThat(stats.deletes()).isEqualTo(1);
    }

    @Test
    void keysShardOverTwoOwnersAndClearEmptiesBoth() {
        fixture = new CacheFixture(2, POLICY, p -> CacheOwner.builder("books").size(1 << 20).policy(p).build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        for (int i = 0; i < 20; i++) {
            books.put("isbn-" + i, new Book("Book " + i, 2000 + i)).block(TIMEOUT);
        }
        assertThat(fixture.owners).allSatisfy(o -> assertThat(o.size()).isPositive());
        assertThat(fixture.owners.get(0).size() + fixture.owners.get(1).size()).isEqualTo(20);
        // Another client, knowing the same servers, finds every key where the first put it.
        RdmaCache<String, Book> other = books("app", Clock.systemUTC());
        for (int i = 0; i < 20; i++) {
            assertThat(other.get("isbn-" + i).block(TIMEOUT)).isEqualTo(new Book("Book " + i, 2000 + i));
        }
        other.clear().block(TIMEOUT);
        assertThat(fixture.owners).allSatisfy(o -> assertThat(o.size()).isZero());
        assertThat(books.get("isbn-3").blockOptional(TIMEOUT)).isEmpty();
    }

    @Test
    void aReaderMayGetButNotChangeAndOthersMayDoNeither() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(1 << 20).policy(p).build());
        books("app", Clock.systemUTC()).put("dune", new Book("Dune", 1965)).block(TIMEOUT);

        RdmaCache<String, Book> reader = books("reader", Clock.systemUTC());
        assertThat(reader.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965));
        assertThatThrownBy(() -> reader.put("dune", new Book("Dune", 2021)).block(TIMEOUT))
                .isInstanceOf(RemoteMemoryException.class)
                .hasMessageContaining("needs WRITE on region 'cache.books'");

        RdmaCache<String, Book> stranger = books("stranger", Clock.systemUTC());
        assertThatThrownBy(() -> stranger.get("dune").block(TIMEOUT))
                .isInstanceOf(RegionAccessDeniedException.class);
        assertThatThrownBy(() -> stranger.delete("dune").block(TIMEOUT))
                .isInstanceOf(RemoteMemoryException.class).hasMessageContaining("granted to other peers");
        assertThat(reader.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965));
    }

    @Test
    void anEntryTooLargeIsRefusedSayingSo() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(1 << 20).maxEntry(256)
                .policy(p).build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        assertThatThrownBy(() -> books.put("long", new Book("x".repeat(300), 1)).block(TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceed the cache's largest, 256");
    }

    @Test
    void entriesExpireOnTheSharedClockAndTheSweepRemovesThem() {
        TestClock clock = new TestClock();
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(1 << 20).clock(clock)
                .defaultTtl(Duration.ofMinutes(10)).sweepInterval(Duration.ofMillis(10)).policy(p).build());
        RdmaCache<String, Book> books = books("app", clock);
        books.put("short", new Book("Short", 1), Duration.ofSeconds(5)).block(TIMEOUT);
        books.put("default", new Book("Default", 2)).block(TIMEOUT);
        books.put("forever", new Book("Forever", 3), Duration.ZERO).block(TIMEOUT);
        CacheOwner owner = fixture.owners.get(0);
        assertThat(owner.size()).isEqualTo(3);

        clock.millis.addAndGet(5_000);
        assertThat(books.get("short").blockOptional(TIMEOUT)).isEmpty();
        assertThat(books.get("default").block(TIMEOUT)).isNotNull();
        await().atMost(TIMEOUT).until(() -> owner.size() == 2);

        clock.millis.addAndGet(Duration.ofMinutes(10).toMillis());
        assertThat(books.get("default").blockOptional(TIMEOUT)).isEmpty();
        await().atMost(TIMEOUT).until(() -> owner.size() == 1);
        assertThat(books.get("forever").block(TIMEOUT)).isEqualTo(new Book("Forever", 3));
        assertThat(owner.expirations()).isEqualTo(2);
    }

    @Test
    void aFullCacheEvictsTheOldestWritten() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(64 * 1024).policy(p).build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        String title = "t".repeat(900);
        for (int i = 0; i < 200; i++) { // about 190 KB into 62 KB of log
            books.put("k" + i, new Book(title, i)).block(TIMEOUT);
        }
        CacheOwner owner = fixture.owners.get(0);
        assertThat(owner.evictions()).isGreaterThan(100);
        assertThat(books.get("k0").blockOptional(TIMEOUT)).isEmpty();
        assertThat(books.get("k199").block(TIMEOUT)).isEqualTo(new Book(title, 199));
        int held = 0;
        for (int i = 0; i < 200; i++) {
            Book b = books.get("k" + i).block(TIMEOUT);
            if (b != null) {
                assertThat(b.year()).isEqualTo(i);
                held++;
            }
        }
        assertThat(held).isEqualTo(owner.size());
    }

    @Test
    void aDeliberatelyTornEntryIsNeverReturned() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(64 * 1024).buckets(16)
                .policy(p).build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        books.put("dune", new Book("Dune", 1965)).block(TIMEOUT);
        // The only entry sits at the start of the log: change one octet of its value, as a write the reader raced
        // would have left it half done.
        ByteBuf region = fixture.servers.get(0).region("cache.books").buffer();
        int logStart = TableLayout.HEADER_SIZE + 16 * TableLayout.BUCKET_SIZE;
        int valueOctet = logStart + TableLayout.ENTRY_HEADER + "\"dune\"".length() + 3;
        region.setByte(valueOctet, region.getByte(valueOctet) ^ 0x20);

        assertThat(books.get("dune").blockOptional(TIMEOUT)).isEmpty();
        CacheStatistics stats = books.statistics();
        assertThat(stats.retries()).isEqualTo(8); // every one-sided read saw the damage
        assertThat(stats.ownerGets()).isEqualTo(1); // then the owner, which verified and dropped it
        assertThat(fixture.owners.get(0).size()).isZero();
    }

    @Test
    void aGetSurvivesTheRegionsLeaseBeingRevoked() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(1 << 20).policy(p).build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        books.put("dune", new Book("Dune", 1965)).block(TIMEOUT);
        assertThat(books.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965));

        assertThat(fixture.servers.get(0).region("cache.books").revoke()).isEqualTo(1);
        // The next Read meets the invalidated STag (a Terminate, RFC 5040 section 7.2); the GET resolves again.
        assertThat(books.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965));
        assertThat(books.statistics().hits()).isEqualTo(2);
        assertThat(fixture.servers.get(0).region("cache.books").leaseCount()).isEqualTo(1);
    }

    @Test
    void aClientHoldingAnOldTablesLayoutReadsTheNewOnesHeader() {
        fixture = new CacheFixture(1, POLICY, p -> CacheOwner.builder("books").size(1 << 20).buckets(64).policy(p)
                .build());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        books.put("dune", new Book("Dune", 1965)).block(TIMEOUT);
        assertThat(books.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965)); // layout read and kept

        // As a restarted owner would: the region formatted anew, with another bucket count and table id.
        ByteBuf region = fixture.servers.get(0).region("cache.books").buffer();
        io.softrdma.memory.cache.internal.CacheTable fresh = new io.softrdma.memory.cache.internal.CacheTable(
                region, TableLayout.plan(region.capacity(), 256, 99), System::currentTimeMillis, 4096);
        ByteBuf key = io.netty.buffer.Unpooled.copiedBuffer("\"emma\"", java.nio.charset.StandardCharsets.UTF_8);
        ByteBuf value = io.netty.buffer.Unpooled.copiedBuffer("{\"title\":\"Emma\",\"year\":1815}",
                java.nio.charset.StandardCharsets.UTF_8);
        fresh.put(key, value, 0, false);
        key.release();
        value.release();

        assertThat(books.get("dune").blockOptional(TIMEOUT)).isEmpty();
        assertThat(books.get("emma").block(TIMEOUT)).isEqualTo(new Book("Emma", 1815));
    }

    @Test
    void aClientBeforeTheOwnerStartsIsToldWhy() {
        fixture = new CacheFixture(0, POLICY, p -> null);
        CacheOwner owner = CacheOwner.builder("books").size(1 << 20).policy(POLICY).build();
        fixture.servers.add(owner.declareOn(io.softrdma.memory.MemoryServer.create().host("127.0.0.1").port(0)
                .policy(POLICY)).bindNow());
        RdmaCache<String, Book> books = books("app", Clock.systemUTC());
        assertThatThrownBy(() -> books.get("dune").block(TIMEOUT)).isInstanceOf(RemoteMemoryException.class)
                .hasMessageContaining("holds no cache table").hasMessageContaining("CacheOwner.start");
        assertThatThrownBy(() -> books.put("dune", new Book("Dune", 1965)).block(TIMEOUT))
                .hasMessageContaining("not started");
        fixture.owners.add(owner.start(fixture.servers.get(0)));
        books.put("dune", new Book("Dune", 1965)).block(TIMEOUT);
        assertThat(books.get("dune").block(TIMEOUT)).isEqualTo(new Book("Dune", 1965));
    }

    @Test
    void buildersRefuseWhatCannotWork() {
        assertThatThrownBy(() -> CacheOwner.builder("no spaces")).hasMessageContaining("must be 1 to 128 letters");
        assertThatThrownBy(() -> CacheOwner.builder("c").size(1000).build())
                .hasMessageContaining("a cache region must be");
        assertThatThrownBy(() -> CacheOwner.builder("c").size(1 << 20).buckets(3).build())
                .hasMessageContaining("power of two");
        assertThatThrownBy(() -> CacheOwner.builder("c").size(1 << 20).maxEntry(1 << 20).build())
                .hasMessageContaining("do not fit a quarter of its entry log");
        assertThatThrownBy(() -> CacheOwner.builder("c").defaultTtl(Duration.ofSeconds(-1)))
                .hasMessageContaining("must not be negative");
    }
}
