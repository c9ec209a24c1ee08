package io.softrdma.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.memory.internal.Records;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Versioned records: a record torn on purpose (octets changed outside the protocol, a writer that died holding the
 * lock) is refused with {@link TornRecordException}, never returned; {@link MillionRecordReadsTest} races readers
 * against writers.
 */
class VersionedRecordTest {
    static final int CAPACITY = 1024;
    static final int RECORDS = 4;
    static final long STRIDE = RecordLayout.footprint(CAPACITY);
    private Fixture fixture;

    @AfterEach
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private void start(int recordAttempts) {
        fixture = new Fixture(MemoryServer.create()
                .region("records", STRIDE * RECORDS, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)
                .policy(AccessPolicy.grant("app", "records", RegionAccess.READ, RegionAccess.WRITE,
                        RegionAccess.ATOMIC)), c -> c.credential("app").recordAttempts(recordAttempts));
    }

    /** A payload that knows whether it is whole: every 64-bit word is {@code stamp}. */
    static ByteBuf payload(long stamp) {
        ByteBuf b = Unpooled.directBuffer(CAPACITY);
        for (int i = 0; i < CAPACITY / 8; i++) {
            b.writeLong(stamp);
        }
        return b;
    }

    /** The stamp of a whole payload; fails the test on a torn one. */
    static long stamp(ByteBuf b) {
        assertThat(b.readableBytes()).isEqualTo(CAPACITY);
        long stamp = b.getLong(b.readerIndex());
        for (int i = 8; i < CAPACITY; i += 8) {
            long word = b.getLong(b.readerIndex() + i);
            if (word != stamp) {
                throw new AssertionError("torn value returned: word 0 is " + stamp + ", word " + i / 8 + " is " + word);
            }
        }
        return stamp;
    }

    @Test
    void aRecordChangedOutsideTheProtocolIsCaughtNotReturned() {
        start(20);
        ServerRegion owned = fixture.server.region("records");
        owned.writeRecord(0, payload(7));
        RemoteRegion region = fixture.region("records");
        assertThat(region.readRecord(0).map(VersionedRecordTest::stamp).block(Fixture.TIMEOUT)).isEqualTo(7);

        // One octet of the payload changed behind the protocol's back: what a torn copy looks like to a reader.
        int octet = RecordLayout.HEADER + 500;
        owned.buffer().setByte(octet, owned.buffer().getByte(octet) ^ 0x40);
        StepVerifier.create(region.readRecord(0, CAPACITY)).expectErrorSatisfies(e -> assertThat(e)
                .isExactlyInstanceOf(TornRecordException.class)
                .hasMessage("the record at 0 of region 'records' was locked by a writer or inconsistent for 20"
                        + " attempts"))
                .verify(Fixture.TIMEOUT);
        StepVerifier.create(region.readRecord(0)).expectError(TornRecordException.class).verify(Fixture.TIMEOUT);
        StepVerifier.create(region.read(0, String.class)).expectError(TornRecordException.class)
                .verify(Fixture.TIMEOUT);
        assertThatThrownBy(() -> owned.readRecord(0)).isInstanceOf(TornRecordException.class);

        // A writer that rewrites it through the protocol repairs it.
        region.writeRecord(0, payload(8)).block(Fixture.TIMEOUT);
        assertThat(region.readRecord(0, CAPACITY).map(VersionedRecordTest::stamp).block(Fixture.TIMEOUT))
                .isEqualTo(8);
    }

    @Test
    void aWriterThatDiedHoldingTheLockLeavesTheRecordUnreadable() {
        start(20);
        ServerRegion owned = fixture.server.region("records");
        owned.writeRecord(STRIDE, payload(3));
        long version = owned.getLong(STRIDE);
        assertThat(version & 1).as("stable").isZero();
        owned.putLong(STRIDE, version + 1); // locked, and nobody will unlock it

        RemoteRegion region = fixture.region("records");
        StepVerifier.create(region.readRecord(STRIDE, CAPACITY)).expectError(TornRecordException.class)
                .verify(Fixture.TIMEOUT);
        StepVerifier.create(region.writeRecord(STRIDE, payload(4))).expectError(TornRecordException.class)
                .verify(Fixture.TIMEOUT);

        owned.putLong(STRIDE, version + 2); // the owner's repair: unlock (the octets are still version's)
        StepVerifier.create(region.readRecord(STRIDE, CAPACITY)).as("the checksum covers the version")
                .expectError(TornRecordException.class).verify(Fixture.TIMEOUT);
        owned.putLong(STRIDE, version);
        assertThat(region.readRecord(STRIDE, CAPACITY).map(VersionedRecordTest::stamp).block(Fixture.TIMEOUT))
                .isEqualTo(3);
    }

    @Test
    void aWriterThatIsCancelledStillGivesTheLockBack() {
        start(20);
        ServerRegion owned = fixture.server.region("records");
        owned.writeRecord(0, payload(1));
        RemoteRegion region = fixture.region("records");
        // Cancelled at once: the protocol (lock, write, unlock) still runs to its end, else the record stays locked.
        region.writeRecord(0, payload(2)).subscribe().dispose();
        org.awaitility.Awaitility.await().atMost(Fixture.TIMEOUT).until(() -> {
            ByteBuf b = owned.readRecord(0);
            try {
                return stamp(b) == 2;
            } finally {
                b.release();
            }
        });
        assertThat(owned.getLong(0) & 1).as("unlocked").isZero();
    }

    @Test
    void theCheckRefusesEveryKindOfTornCopy() {
        ByteBuf whole = record(2, payload(5));
        ByteBuf other = record(4, payload(6));
        try {
            assertThat(Records.verify(whole)).isEqualTo(CAPACITY);
            assertThat(Records.verify(other)).isEqualTo(CAPACITY);
            // version of one write, octets of the next: the checksum was computed for another version
            ByteBuf mixed = whole.copy();
            mixed.setBytes(RecordLayout.HEADER + 512, other, RecordLayout.HEADER + 512, 512);
            assertThat(Records.verify(mixed)).isEqualTo(-1);
            mixed.release();
            // a writer in progress: odd version
            ByteBuf locked = whole.copy();
            locked.setLong(RecordLayout.VERSION, 3);
            assertThat(Records.verify(locked)).isEqualTo(-1);
            locked.release();
            // header of one write with the payload of another
            ByteBuf header = other.copy();
            header.setBytes(0, whole, 0, RecordLayout.HEADER);
            assertThat(Records.verify(header)).isEqualTo(-1);
            header.release();
            // a length beyond what was read
            ByteBuf cut = whole.copy(0, RecordLayout.HEADER + 100);
            assertThat(Records.verify(cut)).isEqualTo(-1);
            cut.release();
        } finally {
            whole.release();
            other.release();
        }
    }

    private static ByteBuf record(long version, ByteBuf payload) {
        ByteBuf r = Unpooled.buffer();
        r.writeLong(version).writeInt(payload.readableBytes())
                .writeInt(Records.checksum(version, payload.readableBytes(), payload, payload.readerIndex()))
                .writeBytes(payload);
        payload.release();
        return r;
    }
}
