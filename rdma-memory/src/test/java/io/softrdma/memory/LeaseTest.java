package io.softrdma.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Leases: they expire unless renewed, renew while in use, and end on revoke, resize and drop — each time the STag is
 * invalidated, a peer still using it gets the RFC 5040 Terminate (RegionRevokedException), and the next operation
 * resolves the region again on a new connection.
 */
class LeaseTest {
    private static final Duration TIMEOUT = Fixture.TIMEOUT;
    private Fixture fixture;

    private static MemoryServer server(Duration lease) {
        return MemoryServer.create().leaseDuration(lease)
                .region("r", 1 << 20, RegionAccess.READ, RegionAccess.WRITE)
                .policy(AccessPolicy.grant("app", AccessPolicy.ANY_REGION, RegionAccess.READ, RegionAccess.WRITE));
    }

    @AfterEach
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void anExpiredLeaseIsInvalidatedAndItsUserGetsATypedErrorThenResolvesAgain() {
        // The client's clock stands still, so it keeps using the lease the server let expire.
        Clock frozen = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        fixture = new Fixture(server(Duration.ofMillis(300)), c -> c.credential("app").clock(frozen));
        fixture.server.region("r").putLong(0, 77);
        RemoteRegion region = fixture.region("r");
        assertThat(region.getLong(0).block(TIMEOUT)).isEqualTo(77);
        assertThat(fixture.server.leaseCount()).isEqualTo(1);

        await().atMost(TIMEOUT).until(() -> fixture.server.leaseCount() == 0);
        StepVerifier.create(region.getLong(0)).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(RegionRevokedException.class)
                .hasMessageContaining("region 'r'")
                .hasMessageContaining("INVALID_STAG"))
                .verify(TIMEOUT);

        assertThat(region.getLong(0).block(TIMEOUT)).as("resolved again, on a new connection").isEqualTo(77);
        assertThat(fixture.server.leaseCount()).isEqualTo(1);
    }

    @Test
    void aLeaseInUseIsRenewedAndAnIdleOneLapses() {
        Duration lease = Duration.ofMillis(400);
        fixture = new Fixture(server(lease), c -> c.credential("app"));
        RemoteRegion region = fixture.region("r");
        int sessionsBefore = fixture.server.sessionCount();

        // Use it for five lease durations: every read succeeds on the same connection, the lease renewed meanwhile.
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        Long reads = Flux.interval(Duration.ofMillis(40)).onBackpressureDrop().take(lease.multipliedBy(5))
                .concatMap(i -> region.getLong(0).onErrorResume(e -> {
                    errors.add(e);
                    return Mono.empty();
                }))
                .count().block(TIMEOUT);
        assertThat(errors).isEmpty();
        assertThat(reads).isGreaterThan(10);
        assertThat(fixture.server.leaseCount()).isEqualTo(1);
        assertThat(fixture.server.sessionCount()).isEqualTo(sessionsBefore);
        LeaseStatistics used = fixture.server.leaseStatistics();
        assertThat(used.lent()).as("one lease, kept alive by renewals").isEqualTo(1);
        assertThat(used.renewed()).isGreaterThanOrEqualTo(4);
        assertThat(used.expired()).isZero();

        await().atMost(TIMEOUT).until(() -> fixture.server.leaseCount() == 0);
        assertThat(fixture.server.leaseStatistics().expired()).isEqualTo(1);
        // Not renewed by an idle client, so expired; the next use resolves before it would use the stale STag.
        assertThat(region.getLong(0).block(TIMEOUT)).isZero();
        assertThat(fixture.server.sessionCount()).as("no Terminate: the client knew its lease was over")
                .isEqualTo(sessionsBefore);
        assertThat(fixture.server.leaseStatistics().lent()).isEqualTo(2);
    }

    @Test
    void aLongFluxOfReadsKeepsItsLeaseAlive() {
        Duration lease = Duration.ofMillis(400);
        fixture = new Fixture(server(lease), c -> c.credential("app"));
        RemoteRegion region = fixture.region("r");
        // One Flux, one lease taken at its start, running for five lease durations.
        Long reads = region.read(Flux.interval(Duration.ofMillis(40)).onBackpressureDrop()
                        .take(lease.multipliedBy(5)).map(i -> new RegionSlice(8 * (i % 100), 8)))
                .count().block(TIMEOUT);
        assertThat(reads).isGreaterThan(10);
        LeaseStatistics stats = fixture.server.leaseStatistics();
        assertThat(stats.lent()).isEqualTo(1);
        assertThat(stats.expired()).isZero();
        assertThat(stats.renewed()).isGreaterThanOrEqualTo(4);
    }

    @Test
    void revocationWhileReadsAreInFlight() {
        fixture = new Fixture(server(Duration.ofSeconds(30)), c -> c.credential("app"));
        ServerRegion owned = fixture.server.region("r");
        for (int i = 0; i < (1 << 20); i += 8) {
            owned.putLong(i, i);
        }
        RemoteRegion region = fixture.region("r");
        AtomicInteger good = new AtomicInteger();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        int slice = 64 << 10;
        // Reads of 64 KiB, ORD at a time, for ever: the owner revokes after the first one arrives.
        region.read(Flux.range(0, Integer.MAX_VALUE).map(i -> new RegionSlice((long) (i % 16) * slice, slice)))
                .doOnNext(b -> check(b, good))
                .subscribe(b -> {
                    if (good.get() == 1) {
                        assertThat(owned.revoke()).isEqualTo(1);
                    }
                }, ended::set);
        await().atMost(TIMEOUT).until(() -> ended.get() != null);
        // A Terminate (INVALID_STAG), or — when the server's close reset the connection before the Terminate got
        // through — the server's word on the re-resolve that the lease was revoked: either way a typed revocation.
        assertThat(ended.get()).isInstanceOf(RegionRevokedException.class)
                .hasMessageFindingMatch("INVALID_STAG|was revoked by the region's owner");
        assertThat(good.get()).isGreaterThanOrEqualTo(1);

        assertThat(region.getLong(8 * 1000).block(TIMEOUT)).as("resolved again").isEqualTo(8000);
        assertThat(owned.leaseCount()).as("the revoked lease is not among them").isEqualTo(1);
        assertThat(fixture.server.leaseStatistics().revoked()).isEqualTo(1);
    }

    /**
     * Right after an operation failed with the revocation, the region is asked for again through the client — not
     * through the revoked handle — and resolves, on a new connection, without an error: the session the Terminate
     * is closing is not used for the new lease.
     */
    @Test
    void aRegionAskedForRightAfterARevocationResolvesAgain() {
        fixture = new Fixture(server(Duration.ofSeconds(30)), c -> c.credential("app"));
        ServerRegion owned = fixture.server.region("r");
        owned.putLong(16, 42);
        for (int i = 0; i < 10; i++) {
            RemoteRegion region = fixture.region("r");
            assertThat(region.getLong(16).block(TIMEOUT)).isEqualTo(42);
            assertThat(owned.revoke()).isEqualTo(1);
            assertThatThrownBy(() -> region.getLong(16).block(TIMEOUT)).isInstanceOf(RegionRevokedException.class);
            assertThat(fixture.client.region("r").flatMap(r -> r.getLong(16)).block(TIMEOUT)).as("round %d", i)
                    .isEqualTo(42);
        }
        assertThat(fixture.server.leaseStatistics().revoked()).isEqualTo(10);
    }

    /** Every word of a slice holds its own offset: a read is either whole and right, or an error. */
    private static void check(ByteBuf b, AtomicInteger good) {
        long first = b.getLong(b.readerIndex());
        for (int i = 0; i < b.readableBytes(); i += 8) {
            assertThat(b.getLong(b.readerIndex() + i)).isEqualTo(first + i);
        }
        good.incrementAndGet();
    }

    /** leasedRegion answers at once from a lease already held, and nothing before it or after it ended. */
    @Test
    void leasedRegionIsThereOnlyWhileAUsableLeaseIsHeld() {
        fixture = new Fixture(server(Duration.ofSeconds(30)), c -> c.credential("app"));
        ServerRegion owned = fixture.server.region("r");
        owned.putLong(8, 5);
        assertThat(fixture.client.leasedRegion("r", "r")).as("never resolved").isEmpty();
        RemoteRegion resolved = fixture.region("r");
        RemoteRegion leased = fixture.client.leasedRegion("r", "r").orElseThrow();
        assertThat(leased.getLong(8).block(TIMEOUT)).isEqualTo(5);
        assertThat(leased.server()).isEqualTo(resolved.server());
        assertThat(owned.revoke()).isEqualTo(1);
        assertThatThrownBy(() -> leased.getLong(8).block(TIMEOUT)).isInstanceOf(RegionRevokedException.class);
        assertThat(fixture.client.leasedRegion("r", "r")).as("the revoked lease was dropped").isEmpty();
        assertThat(fixture.client.region("r").flatMap(r -> r.getLong(8)).block(TIMEOUT)).isEqualTo(5);
        assertThat(fixture.client.leasedRegion("r", "r")).as("resolved again").isPresent();
    }

    @Test
    void aReleasedLeaseEndsAtOnceAndTheHandleResolvesAgain() {
        fixture = new Fixture(server(Duration.ofSeconds(30)), c -> c.credential("app"));
        fixture.server.region("r").putLong(0, 11);
        RemoteRegion region = fixture.region("r");
        assertThat(fixture.server.leaseCount()).isEqualTo(1);
        region.release().block(TIMEOUT);
        assertThat(fixture.server.leaseCount()).isZero();
        assertThat(fixture.server.leaseStatistics().released()).isEqualTo(1);
        assertThat(region.getLong(0).block(TIMEOUT)).isEqualTo(11);
        assertThat(fixture.server.leaseStatistics().lent()).isEqualTo(2);
    }

    @Test
    void aResizeRevokesAndTheNextLeaseSeesTheNewSizeAndTheOldContents() {
        fixture = new Fixture(server(Duration.ofSeconds(30)), c -> c.credential("app"));
        ServerRegion owned = fixture.server.region("r");
        owned.putLong(64, 6464);
        RemoteRegion region = fixture.region("r");
        assertThat(region.size()).isEqualTo(1 << 20);

        owned.resize(2 << 20);
        StepVerifier.create(region.getLong(64)).expectError(RegionRevokedException.class).verify(TIMEOUT);
        assertThat(region.getLong((2 << 20) - 8).block(TIMEOUT)).isZero();
        assertThat(region.size()).isEqualTo(2 << 20);
        assertThat(region.getLong(64).block(TIMEOUT)).isEqualTo(6464);
    }

    @Test
    void aDroppedRegionRevokesThenIsGone() {
        fixture = new Fixture(server(Duration.ofSeconds(30)), c -> c.credential("app"));
        RemoteRegion region = fixture.region("r");
        region.getLong(0).block(TIMEOUT);

        fixture.server.region("r").drop();
        assertThat(fixture.server.leaseCount()).isZero();
        StepVerifier.create(region.getLong(0)).expectError(RegionRevokedException.class).verify(TIMEOUT);
        StepVerifier.create(region.getLong(0)).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(NoSuchRegionException.class).hasMessage("no region 'r' on this memory server"))
                .verify(TIMEOUT);
        StepVerifier.create(fixture.client.region("r")).expectError(NoSuchRegionException.class).verify(TIMEOUT);

        fixture.server.addRegion(RegionSpec.of("r", 64, RegionAccess.READ));
        assertThat(fixture.client.region("r").flatMap(r -> r.getLong(56)).block(TIMEOUT))
                .as("a region added at runtime").isZero();
    }
}
