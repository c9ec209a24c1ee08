package io.softrdma.memory;

import io.netty.buffer.ByteBuf;
import io.softrdma.memory.internal.RegionState;
import java.util.Objects;

/**
 * A region as its owner sees it: the local memory that clients reach remotely, and the owner's controls over the
 * leases lent on it. A handle: cheap, and every method works on the region's current memory (a resize replaces it).
 *
 * <p>Concurrency with remote access: plain reads and writes of {@link #buffer()} are not ordered with the peers'
 * RDMA Reads and Writes (RFC 5040 §5.5: memory an operation uses is indeterminate meanwhile); use the 64-bit
 * atomics here, which are atomic with the peers' RFC 7306 atomics on the same word, or the versioned records,
 * which readers on either side check.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class ServerRegion {
    private final RegionState state;

    ServerRegion(RegionState state) {
        this.state = state;
    }

    public String name() {
        return state.name();
    }

    /** The region's name, size and access now. */
    public RegionSpec spec() {
        return state.spec();
    }

    public long size() {
        return state.spec().size();
    }

    /**
     * The region's memory now, index 0 its first octet. The region's: do not release it. After {@link #resize} or
     * {@link #drop} it is no longer the region's memory (a resize copies what fits to the new one).
     *
     * @throws IllegalStateException if the region was dropped
     */
    public ByteBuf buffer() {
        return state.buffer();
    }

    /**
     * Revokes every lease lent on this region: their STags are invalid from now on, so a peer's next use of one gets
     * a Terminate and its client resolves the region again (getting a new STag, if the policy still grants it).
     * Operations already placed are not undone. Returns the number of leases revoked.
     */
    public int revoke() {
        return state.revoke();
    }

    /**
     * Gives the region {@code newSize} octets of new memory, copies what fits of the old contents, and revokes every
     * lease (the STags name the old memory).
     *
     * @throws IllegalArgumentException if the size is not a multiple of 8 from 8 to {@link RegionSpec#MAX_SIZE}
     * @throws IllegalStateException if the region was dropped
     */
    public ServerRegion resize(long newSize) {
        state.resize(newSize);
        return this;
    }

    /** Removes the region: every lease is revoked, clients resolving it get {@link NoSuchRegionException}. */
    public void drop() {
        state.drop();
    }

    public boolean isDropped() {
        return state.isDropped();
    }

    /** Leases lent on this region now, one per session that resolved it. */
    public int leaseCount() {
        return state.leaseCount();
    }

    // ---- 64-bit words, atomic with the peers' RFC 7306 atomics ----

    /** The word at {@code offset} (a multiple of 8), big-endian, with volatile semantics. */
    public long getLong(long offset) {
        return state.words().getLong(offset);
    }

    /** Sets the word at {@code offset} (a multiple of 8), with volatile semantics. */
    public void putLong(long offset, long value) {
        state.words().putLong(offset, value);
    }

    /** Adds {@code delta} to the word at {@code offset} atomically; returns the value before. */
    public long fetchAdd(long offset, long delta) {
        return state.words().fetchAdd(offset, delta);
    }

    /** Sets the word at {@code offset} to {@code update} if it is {@code expect}, atomically; returns the value before. */
    public long compareAndSwap(long offset, long expect, long update) {
        return state.words().compareAndSwap(offset, expect, update);
    }

    // ---- versioned records (docs/protocol.md, "Versioned records") ----

    /**
     * Writes the readable octets of {@code payload} as the record at {@code offset}, under the record's lock
     * (so remote writers and this one take turns, and readers never accept a half-written record). Releases
     * {@code payload}. While a remote writer holds the record this waits — spinning briefly, then parking up to a
     * millisecond at a time — so do not call it on an event loop (a {@link MemoryService} handler): hand it to
     * another thread.
     *
     * @throws IllegalArgumentException if {@code offset} is not a multiple of 8 or the record does not fit
     * @throws TornRecordException if another writer held the record for the whole of the attempts
     */
    public void writeRecord(long offset, ByteBuf payload) {
        Objects.requireNonNull(payload, "payload");
        state.records().write(offset, payload);
    }

    /**
     * Reads the record at {@code offset}: a copy of its payload that the caller owns (release it), never a torn one.
     * Waits as {@link #writeRecord} does while a writer holds it.
     *
     * @throws TornRecordException if the record stayed inconsistent for every attempt
     */
    public ByteBuf readRecord(long offset) {
        return state.records().read(offset);
    }

    @Override
    public String toString() {
        return "ServerRegion{" + state + "}";
    }
}
