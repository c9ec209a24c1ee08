package io.softrdma.memory;

import static io.softrdma.memory.VersionedRecordTest.CAPACITY;
import static io.softrdma.memory.VersionedRecordTest.RECORDS;
import static io.softrdma.memory.VersionedRecordTest.STRIDE;
import static io.softrdma.memory.VersionedRecordTest.payload;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.softrdma.memory.internal.RegionClient;
import io.softrdma.testing.WithoutLeakTracking;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Torn reads are detected, never returned: a million versioned-record reads race a remote writer and the owner
 * writing locally, on the same four records, and every value read is whole. Leak tracking is off (a million tracked
 * buffers would make this a test of the tracker); the record tests with tracking on are in
 * {@link VersionedRecordTest}.
 */
@ExtendWith(WithoutLeakTracking.class)
class MillionRecordReadsTest {
    private static final int READS = Integer.getInteger("memory.recordReads", 1_000_000);
    private Fixture fixture;

    @AfterEach
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aMillionReadsAgainstConcurrentWritersFindNoTornValue() {
        fixture = new Fixture(MemoryServer.create()
                .region("records", STRIDE * RECORDS, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)
                .policy(AccessPolicy.grant("app", "records", RegionAccess.READ, RegionAccess.WRITE,
                        RegionAccess.ATOMIC)), c -> c.credential("app"));
        ServerRegion owned = fixture.server.region("records");
        RemoteRegion region = fixture.region("records");
        for (int r = 0; r < RECORDS; r++) {
            owned.writeRecord(r * STRIDE, payload(r));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ownerWrites = new AtomicLong();
        AtomicReference<Throwable> writerFailed = new AtomicReference<>();
        // The owner writes locally with the same lock protocol, pausing between writes so that it shares the two
        // cores of a small machine with the event loops rather than starving them.
        Thread owner = new Thread(() -> {
            try {
                long stamp = 1_000_000;
                while (!stop.get()) {
                    owned.writeRecord((stamp % RECORDS) * STRIDE, payload(stamp++));
                    ownerWrites.incrementAndGet();
                    LockSupport.parkNanos(20_000);
                }
            } catch (Throwable t) {
                writerFailed.compareAndSet(null, t);
            }
        }, "owner-writer");
        owner.start();
        AtomicLong remoteWrites = new AtomicLong();
        Disposable writer = Flux.range(0, Integer.MAX_VALUE)
                .concatMap(i -> region.writeRecord((i % RECORDS) * STRIDE, payload(2_000_000L + i))
                        .doOnSuccess(v -> remoteWrites.incrementAndGet()))
                .subscribe(v -> { }, e -> writerFailed.compareAndSet(null, e));
        long tornBefore = RegionClient.tornAttempts();
        try {
            long reads = Flux.range(0, READS)
                    .flatMap(i -> region.readRecord((i % RECORDS) * STRIDE, CAPACITY)
                            .map(VersionedRecordTest::stamp), 64)
                    .count().block(Duration.ofMinutes(15));
            assertThat(reads).isEqualTo(READS);
        } catch (RuntimeException e) {
            ByteBuf m = owned.buffer();
            for (int r = 0; r < RECORDS; r++) {
                int at = (int) (r * STRIDE);
                System.out.printf("record %d: version %d length %d crc %08x computed(v) %08x stamp0 %d stamp1 %d"
                        + " writerFailed %s owner %d remote %d%n", r, m.getLong(at), m.getInt(at + 8),
                        m.getInt(at + 12), io.softrdma.memory.internal.Records.checksum(m.getLong(at), m.getInt(at + 8),
                        m, at + 16), m.getLong(at + 16), m.getLong(at + 24), writerFailed.get(), ownerWrites.get(),
                        remoteWrites.get());
            }
            throw e;
        } finally {
            stop.set(true);
            writer.dispose();
            org.awaitility.Awaitility.await().atMost(Fixture.TIMEOUT).until(() -> !owner.isAlive());
        }
        assertThat(writerFailed.get()).as("no writer failed").isNull();
        assertThat(ownerWrites.get()).as("the owner wrote meanwhile").isPositive();
        assertThat(remoteWrites.get()).as("the remote writer wrote meanwhile").isPositive();
        System.out.printf("%d reads, %d owner writes, %d remote writes, %d torn or locked attempts retried%n", READS,
                ownerWrites.get(), remoteWrites.get(), RegionClient.tornAttempts() - tornBefore);
        // The owner's own reads, racing nobody now, see whole values too.
        for (int r = 0; r < RECORDS; r++) {
            ByteBuf b = owned.readRecord(r * STRIDE);
            try {
                VersionedRecordTest.stamp(b);
            } finally {
                b.release();
            }
        }
    }
}
