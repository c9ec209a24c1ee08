package io.softrdma.memory.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The owner's table on a plain buffer: placement, replacement, eviction, TTL, and its header and bucket checksums. */
class CacheTableTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final ByteBuf region = Unpooled.directBuffer(64 * 1024);
    private final CacheTable table = new CacheTable(region, TableLayout.plan(region.capacity(), 16, 42), now::get,
            4096);

    @AfterEach
    void release() {
        region.release();
    }

    static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    String get(String key) {
        ByteBuf k = bytes(key);
        ByteBuf v = table.get(k, ByteBufAllocator.DEFAULT);
        k.release();
        if (v == null) {
            return null;
        }
        try {
            return v.toString(StandardCharsets.UTF_8);
        } finally {
            v.release();
        }
    }

    CacheTable.PutResult put(String key, String value, long expiresAt) {
        ByteBuf k = bytes(key);
        ByteBuf v = bytes(value);
        try {
            return table.put(k, v, expiresAt, false);
        } finally {
            k.release();
            v.release();
        }
    }

    boolean delete(String key) {
        ByteBuf k = bytes(key);
        try {
            return table.delete(k);
        } finally {
            k.release();
        }
    }

    @Test
    void headerDescribesTheLayoutAndIsChecksummed() {
        TableLayout read = TableLayout.readHeader(region.slice(0, TableLayout.HEADER_SIZE));
        assertThat(read.bucketCount()).isEqualTo(16);
        assertThat(read.tableId()).isEqualTo(42);
        assertThat(read.logOffset()).isEqualTo(TableLayout.HEADER_SIZE + 16 * TableLayout.BUCKET_SIZE);
        region.setByte(45, region.getByte(45) ^ 1);
        assertThatThrownBy(() -> TableLayout.readHeader(region.slice(0, 64))).isInstanceOf(TornReadException.class);
        region.setInt(0, 0);
        assertThatThrownBy(() -> TableLayout.readHeader(region.slice(0, 64))).hasMessageContaining("not an RDMA cache");
    }

    @Test
    void layoutRefusesWhatCannotHoldATable() {
        assertThatThrownBy(() -> TableLayout.plan(100, 0, 1)).hasMessageContaining("a cache region must be");
        assertThatThrownBy(() -> TableLayout.plan(1 << 20, 3, 1)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> TableLayout.plan(1 << 16, 512, 1)).hasMessageContaining("use fewer buckets");
        assertThat(TableLayout.plan(1 << 20, 0, 1).bucketCount()).isEqualTo(1024);
    }

    @Test
    void putGetReplaceDelete() {
        assertThat(get("a")).isNull();
        assertThat(put("a", "1", 0)).isEqualTo(CacheTable.PutResult.STORED);
        assertThat(put("b", "2", 0)).isEqualTo(CacheTable.PutResult.STORED);
        assertThat(get("a")).isEqualTo("1");
        assertThat(put("a", "one", 0)).isEqualTo(CacheTable.PutResult.STORED);
        assertThat(get("a")).isEqualTo("one");
        assertThat(table.size()).isEqualTo(2);
        assertThat(delete("a")).isTrue();
        assertThat(delete("a")).isFalse();
        assertThat(get("a")).isNull();
        assertThat(get("b")).isEqualTo("2");
        table.clear();
        assertThat(get("b")).isNull();
        assertThat(table.size()).isZero();
    }

    /** The entry the key's slot points to now. */
    private int entryOf(String key) {
        ByteBuf k = bytes(key);
        long hash = KeyHash.of(k);
        k.release();
        int base = table.layout().bucketOffset(KeyHash.bucket(hash, table.layout().bucketCount()));
        for (int s = 0; s < TableLayout.SLOTS; s++) {
            if (Buckets.tag(region, base, s) == KeyHash.tag(hash)) {
                return (int) Buckets.entryOffset(region, base, s);
            }
        }
        return -1;
    }

    @Test
    void anEntryIsLiveOnlyWhileItsSlotPointsToIt() {
        put("a", "1", 0);
        int first = entryOf("a");
        assertThat(Entries.state(region, first)).isEqualTo(Entries.LIVE);
        put("a", "2", 0);
        int second = entryOf("a");
        assertThat(second).isNotEqualTo(first);
        assertThat(Entries.state(region, first)).as("replaced").isEqualTo(Entries.DEAD);
        assertThat(Entries.state(region, second)).isEqualTo(Entries.LIVE);
        delete("a");
        assertThat(Entries.state(region, second)).as("deleted").isEqualTo(Entries.DEAD);
        put("t", "x", now.get() + 10);
        int expiring = entryOf("t");
        now.addAndGet(10);
        table.expire();
        assertThat(Entries.state(region, expiring)).as("expired").isEqualTo(Entries.DEAD);
    }

    @Test
    void putIfAbsentKeepsTheLiveValue() {
        ByteBuf k = bytes("k");
        ByteBuf v1 = bytes("v1");
        ByteBuf v2 = bytes("v2");
        try {
            assertThat(table.put(k, v1, 0, true)).isEqualTo(CacheTable.PutResult.STORED);
            assertThat(table.put(k, v2, 0, true)).isEqualTo(CacheTable.PutResult.EXISTS);
            assertThat(get("k")).isEqualTo("v1");
        } finally {
            k.release();
            v1.release();
            v2.release();
        }
    }

    @Test
    void refusesAnEntryLargerThanTheLimit() {
        assertThat(put("big", "x".repeat(4096), 0)).isEqualTo(CacheTable.PutResult.TOO_LARGE);
        assertThat(table.size()).isZero();
        assertThatThrownBy(() -> new CacheTable(region, table.layout(), now::get, 60_000))
                .hasMessageContaining("a quarter of the entry log");
    }

    @Test
    void theLogWrapsEvictingTheOldestWritten() {
        String value = "v".repeat(1000);
        int n = 200; // about 200 KB into a log of about 62 KB: wraps three times
        for (int i = 0; i < n; i++) {
            assertThat(put("key" + i, value + i, 0)).isEqualTo(CacheTable.PutResult.STORED);
        }
        assertThat(table.evictions()).isGreaterThan(0);
        assertThat(get("key" + (n - 1))).isEqualTo(value + (n - 1));
        assertThat(get("key0")).isNull();
        // Whatever is still held is intact, and only recent keys are held.
        int held = 0;
        for (int i = 0; i < n; i++) {
            String v = get("key" + i);
            if (v != null) {
                assertThat(v).isEqualTo(value + i);
                assertThat(i).isGreaterThan(n - 70);
                held++;
            }
        }
        assertThat(held).isEqualTo(table.size()).isGreaterThan(40);
    }

    @Test
    void aFullBucketEvictsItsOldestEntry() {
        // One bucket only: the eighth key evicts the first.
        ByteBuf small = Unpooled.directBuffer(TableLayout.MIN_REGION + 4096);
        try {
            CacheTable one = new CacheTable(small, TableLayout.plan(small.capacity(), 1, 7), now::get, 1024);
            for (int i = 0; i < TableLayout.SLOTS + 1; i++) {
                ByteBuf k = bytes("k" + i);
                ByteBuf v = bytes("v" + i);
                one.put(k, v, 0, false);
                k.release();
                v.release();
            }
            assertThat(one.size()).isEqualTo(TableLayout.SLOTS);
            assertThat(one.evictions()).isEqualTo(1);
            ByteBuf k0 = bytes("k0");
            ByteBuf k1 = bytes("k1");
            assertThat(one.get(k0, ByteBufAllocator.DEFAULT)).isNull();
            ByteBuf v1 = one.get(k1, ByteBufAllocator.DEFAULT);
            assertThat(v1.toString(StandardCharsets.UTF_8)).isEqualTo("v1");
            v1.release();
            k0.release();
            k1.release();
        } finally {
            small.release();
        }
    }

    @Test
    void entriesExpireOnTheOwnersClock() {
        put("short", "s", now.get() + 100);
        put("long", "l", now.get() + 10_000);
        put("never", "n", 0);
        assertThat(table.expire()).isZero();
        now.addAndGet(100);
        assertThat(get("short")).isNull(); // expired before it is swept
        assertThat(table.size()).isEqualTo(3);
        assertThat(table.expire()).isEqualTo(1);
        assertThat(table.size()).isEqualTo(2);
        put("long", "l2", 0); // replaced without a TTL: the old expiry no longer applies
        now.addAndGet(20_000);
        assertThat(table.expire()).isZero();
        assertThat(get("long")).isEqualTo("l2");
        assertThat(get("never")).isEqualTo("n");
        assertThat(table.expirations()).isEqualTo(1);
    }

    @Test
    void everyBucketVerifiesAndAChangedOctetIsCaught() {
        for (int i = 0; i < 50; i++) {
            put("key" + i, "value" + i, 0);
        }
        TableLayout layout = table.layout();
        for (int b = 0; b < layout.bucketCount(); b++) {
            Buckets.verify(region, layout.bucketOffset(b));
        }
        int base = layout.bucketOffset(3);
        region.setByte(base + 20, region.getByte(base + 20) ^ 0x10);
        assertThatThrownBy(() -> Buckets.verify(region, base)).isInstanceOf(TornReadException.class);
    }
}
