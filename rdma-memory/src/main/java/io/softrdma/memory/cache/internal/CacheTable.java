package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.SLOTS;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The owner's side of the table: the only writer of a cache region, keeping it in the layout one-sided readers
 * verify (docs/protocol.md, "RDMA cache table").
 *
 * <p>Entries go to a circular log, written whole (checksum last) before the bucket slot that points to them changes
 * (checksum last): a reader either sees the old slot or the new one, and an entry being overwritten fails its
 * checksum. Space comes back as the log wraps: writing at the head evicts the entries it overlaps, so the log is also
 * the eviction order (oldest written first: the owner never sees one-sided GETs, so it cannot know the least
 * recently used). A full bucket evicts its oldest entry. TTLs are kept on the owner's clock and swept by
 * {@link #expire()}.
 *
 * <p>Thread safety: none; the owner serialises calls (see CacheOwner). Buffer ownership: {@code key} and
 * {@code value} arguments stay the caller's; the region is the caller's and must outlive the table.
 */
public final class CacheTable {
    /** What a put did. */
    public enum PutResult {
        STORED, EXISTS, TOO_LARGE
    }

    /** An entry the table holds: where it is and which slot points to it. */
    private record Live(int offset, int allocation, int bucket, int slot, long seq, long expiresAt) {
    }

    private record Expiry(long at, int offset, long seq) {
    }

    private final ByteBuf region;
    private final TableLayout layout;
    private final LongSupplier clock;
    private final int maxEntry;
    private final TreeMap<Integer, Live> byOffset = new TreeMap<>();
    private final PriorityQueue<Expiry> expiries = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    private int head;
    private long seq;
    private long evictions;
    private long expirations;
    private long damaged;

    /**
     * A table over {@code region} (index 0 the region's first octet), formatted at once.
     *
     * @param clock milliseconds since the epoch, the time TTLs are measured in
     * @param maxEntry the largest entry (header, key and value) to accept; at most a quarter of the log,
     *     so one put never empties most of the cache
     */
    public CacheTable(ByteBuf region, TableLayout layout, LongSupplier clock, int maxEntry) {
        if (region.capacity() < layout.logOffset() + layout.logLength()) {
            throw new IllegalArgumentException("region of " + region.capacity() + " octets is smaller than " + layout);
        }
        if (maxEntry < TableLayout.ENTRY_HEADER + 1 || maxEntry > layout.logLength() / 4) {
            throw new IllegalArgumentException("largest entry must be " + (TableLayout.ENTRY_HEADER + 1) + " to "
                    + layout.logLength() / 4 + " octets (a quarter of the entry log), not " + maxEntry);
        }
        this.region = region;
        this.layout = layout;
        this.clock = clock;
        this.maxEntry = maxEntry;
        format();
    }

    public TableLayout layout() {
        return layout;
    }

    /** The largest entry accepted: header, key and value. */
    public int maxEntry() {
        return maxEntry;
    }

    /** Empties the table: every bucket, then the header (a reader of a stale bucket finds its entry torn or gone). */
    private void format() {
        for (int b = 0; b < layout.bucketCount(); b++) {
            Buckets.format(region, layout.bucketOffset(b), layout.tableId());
        }
        byOffset.clear();
        expiries.clear();
        head = 0;
        layout.writeHeader(region);
    }

    /** Removes every entry. */
    public void clear() {
        for (Live live : new ArrayList<>(byOffset.values())) {
            remove(live);
        }
        expiries.clear();
        head = 0;
    }

    /**
     * Stores {@code value} under {@code key} (replacing any value, or only if there is none when {@code ifAbsent}),
     * to expire at {@code expiresAt} (ms since the epoch, 0 for never).
     */
    public PutResult put(ByteBuf key, ByteBuf value, long expiresAt, boolean ifAbsent) {
        long hash = KeyHash.of(key);
        int bucket = KeyHash.bucket(hash, layout.bucketCount());
        int base = layout.bucketOffset(bucket);
        if (ifAbsent) {
            int slot = find(base, hash, key);
            if (slot >= 0 && !expiredAt(slot, base)) {
                return PutResult.EXISTS;
            }
        }
        int length = Entries.length(key.readableBytes(), value.readableBytes());
        if (length > maxEntry) {
            return PutResult.TOO_LARGE;
        }
        int allocation = TableLayout.allocation(length);
        int offset = allocate(allocation);
        long written = ++seq;
        int stamp = (int) written;
        Entries.write(region, offset, stamp, hash, expiresAt, key, value);
        // The entry must be visible before the slot that points to it (the one-sided reader follows the slot).
        VarHandle.releaseFence();
        int slot = find(base, hash, key);
        int replaced = -1;
        if (slot >= 0) {
            replaced = (int) Buckets.entryOffset(region, base, slot);
            byOffset.remove(replaced);
        } else {
            slot = freeSlot(base);
            if (slot < 0) {
                slot = oldest(bucket);
                removeAt(base, slot);
                evictions++;
            }
        }
        Buckets.setSlot(region, base, slot, KeyHash.tag(hash), length, stamp, offset);
        Buckets.seal(region, base);
        // Only now that the slot points to it: the old entry DEAD, then the new one LIVE, before the PUT is answered
        // (a reader of the entry alone trusts LIVE; see Entries).
        VarHandle.releaseFence();
        if (replaced >= 0) {
            Entries.setState(region, replaced, Entries.DEAD);
        }
        Entries.setState(region, offset, Entries.LIVE);
        Live live = new Live(offset, allocation, bucket, slot, written, expiresAt);
        byOffset.put(offset, live);
        if (expiresAt != 0) {
            expiries.add(new Expiry(expiresAt, offset, live.seq));
        }
        return PutResult.STORED;
    }

    /** Removes {@code key}'s entry; whether there was one (expired or not). */
    public boolean delete(ByteBuf key) {
        long hash = KeyHash.of(key);
        int base = layout.bucketOffset(KeyHash.bucket(hash, layout.bucketCount()));
        int slot = find(base, hash, key);
        if (slot < 0) {
            return false;
        }
        removeAt(base, slot);
        return true;
    }

    /** A copy of {@code key}'s value (the caller's to release), or null if absent or expired. */
    public ByteBuf get(ByteBuf key, ByteBufAllocator alloc) {
        long hash = KeyHash.of(key);
        int base = layout.bucketOffset(KeyHash.bucket(hash, layout.bucketCount()));
        int slot = find(base, hash, key);
        if (slot < 0 || expiredAt(slot, base)) {
            return null;
        }
        int at = (int) Buckets.entryOffset(region, base, slot);
        try {
            Entries.verify(region, at, Buckets.entryLength(region, base, slot), hash,
                    Buckets.stamp(region, base, slot));
        } catch (TornReadException e) {
            // Only this owner writes the region, whole: a bad checksum here is damage, not a race. Never return it.
            removeAt(base, slot);
            damaged++;
            return null;
        }
        ByteBuf value = Entries.value(region, at);
        return alloc.buffer(value.readableBytes()).writeBytes(value);
    }

    /** Removes the entries whose time has come; how many. */
    public int expire() {
        long now = clock.getAsLong();
        int n = 0;
        for (Expiry e = expiries.peek(); e != null && e.at <= now; e = expiries.peek()) {
            expiries.poll();
            Live live = byOffset.get(e.offset);
            if (live != null && live.seq == e.seq) {
                remove(live);
                expirations++;
                n++;
            }
        }
        return n;
    }

    /** Entries found damaged (checksum mismatch) by an owner GET and dropped, since the table was made. */
    public long damaged() {
        return damaged;
    }

    /** Entries held (some may have expired and not been swept yet). */
    public int size() {
        return byOffset.size();
    }

    /** Entries evicted to make room (log space or a full bucket) since the table was made. */
    public long evictions() {
        return evictions;
    }

    /** Entries removed by {@link #expire()} since the table was made. */
    public long expirations() {
        return expirations;
    }

    /** The slot of {@code base}'s bucket that holds {@code key}, or -1. */
    private int find(int base, long hash, ByteBuf key) {
        int tag = KeyHash.tag(hash);
        for (int s = 0; s < SLOTS; s++) {
            if (Buckets.tag(region, base, s) == tag) {
                int at = (int) Buckets.entryOffset(region, base, s);
                if (Entries.hash(region, at) == hash && Entries.keyEquals(region, at, key)) {
                    return s;
                }
            }
        }
        return -1;
    }

    private boolean expiredAt(int slot, int base) {
        return Entries.expired(region, (int) Buckets.entryOffset(region, base, slot), clock.getAsLong());
    }

    private int freeSlot(int base) {
        for (int s = 0; s < SLOTS; s++) {
            if (Buckets.tag(region, base, s) == 0) {
                return s;
            }
        }
        return -1;
    }

    private int oldest(int bucket) {
        int base = layout.bucketOffset(bucket);
        int oldest = 0;
        long oldestSeq = Long.MAX_VALUE;
        for (int s = 0; s < SLOTS; s++) {
            Live live = byOffset.get((int) Buckets.entryOffset(region, base, s));
            long seqOfSlot = live == null ? -1 : live.seq; // a slot the owner does not know: first to go
            if (seqOfSlot < oldestSeq) {
                oldestSeq = seqOfSlot;
                oldest = s;
            }
        }
        return oldest;
    }

    /**
     * Space for an entry at the log's head, wrapping to the log's start when it does not fit before the end, and
     * evicting the entries that space overlaps.
     */
    private int allocate(int allocation) {
        if (head + allocation > layout.logLength()) {
            head = 0;
        }
        int start = layout.logOffset() + head;
        int end = start + allocation;
        List<Live> overlapped = new ArrayList<>();
        Map.Entry<Integer, Live> before = byOffset.lowerEntry(start);
        if (before != null && before.getKey() + before.getValue().allocation > start) {
            overlapped.add(before.getValue());
        }
        overlapped.addAll(byOffset.subMap(start, end).values());
        for (Live live : overlapped) {
            remove(live);
            evictions++;
        }
        head += allocation;
        return start;
    }

    /** Frees the slot of {@code base}'s bucket and forgets its entry, if the owner knew it. */
    private void removeAt(int base, int slot) {
        int at = (int) Buckets.entryOffset(region, base, slot);
        byOffset.remove(at);
        Buckets.clearSlot(region, base, slot);
        Buckets.seal(region, base);
        VarHandle.releaseFence();
        Entries.setState(region, at, Entries.DEAD);
    }

    /**
     * Frees a slot (checksum last), marks the entry DEAD and forgets it; its octets stay until the log's head
     * overwrites them.
     */
    private void remove(Live live) {
        int base = layout.bucketOffset(live.bucket);
        Buckets.clearSlot(region, base, live.slot);
        Buckets.seal(region, base);
        VarHandle.releaseFence();
        Entries.setState(region, live.offset, Entries.DEAD);
        byOffset.remove(live.offset);
    }
}
