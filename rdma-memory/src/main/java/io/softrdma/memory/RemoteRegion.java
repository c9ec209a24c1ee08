package io.softrdma.memory;

import io.netty.buffer.ByteBuf;
import io.softrdma.memory.internal.RegionClient;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Set;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A named region of a memory server, reached with one-sided RDMA operations: the server's application code does
 * not run for them. A handle that outlives leases: each operation uses the current lease, renewing it when half of
 * it has passed and resolving the region again (on a new connection if need be) after a revocation.
 *
 * <p>Errors: an operation on a lease the server revoked (or that expired, or whose region was resized or dropped)
 * fails with {@link RegionRevokedException}, and the next operation resolves again; an operation the lease's rights
 * do not allow fails with {@link RegionAccessDeniedException} before anything is sent; an offset or length outside
 * the region fails with {@link IllegalArgumentException} before anything is sent. Operations complete when RFC 5040
 * §5.5 says they are complete at this end.
 *
 * <p>Buffers: what a read emits is the library's: valid while {@code onNext} runs, released when it returns, so map
 * it to a value there (retain it to keep it). A buffer handed to a write is the library's from the call on: it is
 * released once written or failed.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RemoteRegion {
    private final RegionClient region;

    RemoteRegion(RegionClient region) {
        this.region = region;
    }

    public String name() {
        return region.name();
    }

    /** Octets in the region, as of the latest lease. */
    public long size() {
        return region.size();
    }

    /** The rights this peer holds, as of the latest lease. */
    public Set<RegionAccess> rights() {
        return region.rights();
    }

    /** The server the region lives on. */
    public InetSocketAddress server() {
        return region.server();
    }

    /**
     * Gives the current lease back: the server invalidates its STag and deregisters the memory now instead of when
     * the lease expires. The handle stays usable: its next operation resolves the region again.
     */
    public Mono<Void> release() {
        return region.release();
    }

    // ---- octets ----

    /** RDMA-Reads {@code length} octets from {@code offset}. */
    public Mono<ByteBuf> read(long offset, int length) {
        return region.read(offset, length);
    }

    /**
     * RDMA-Reads each slice in turn, emitting the results in order, with at most the session's ORD Reads
     * outstanding however much downstream requests (so the server's IRD, RFC 5040 §6.1, is never exceeded).
     */
    public Flux<ByteBuf> read(Publisher<RegionSlice> slices) {
        Objects.requireNonNull(slices, "slices");
        return region.read(slices);
    }

    /** RDMA-Writes the readable octets of {@code data} at {@code offset}. */
    public Mono<Void> write(long offset, ByteBuf data) {
        Objects.requireNonNull(data, "data");
        return region.write(offset, data);
    }

    // ---- 64-bit words (big-endian) ----

    /** RDMA-Reads the word at {@code offset}. */
    public Mono<Long> getLong(long offset) {
        return region.getLong(offset);
    }

    /** RDMA-Writes the word at {@code offset}. */
    public Mono<Void> putLong(long offset, long value) {
        return region.putLong(offset, value);
    }

    /** RFC 7306 Fetch-and-Add on the word at {@code offset} (a multiple of 8): emits the value before. */
    public Mono<Long> fetchAdd(long offset, long delta) {
        return region.fetchAdd(offset, delta);
    }

    /**
     * RFC 7306 Compare-and-Swap on the word at {@code offset} (a multiple of 8): emits the value before, which
     * equals {@code expect} if the swap happened.
     */
    public Mono<Long> compareAndSwap(long offset, long expect, long update) {
        return region.compareAndSwap(offset, expect, update);
    }

    // ---- versioned records (docs/protocol.md, "Versioned records") ----

    /**
     * Reads the versioned record at {@code offset} (a multiple of 8): its payload, never a torn one. Two Reads:
     * the header, then header and payload, checked and retried while a writer holds the record.
     *
     * @see #readRecord(long, int)
     */
    public Mono<ByteBuf> readRecord(long offset) {
        return region.readRecord(offset, -1);
    }

    /**
     * Reads the versioned record at {@code offset} whose payload is at most {@code capacity} octets, with one RDMA
     * Read per attempt: the record is accepted only if its version is even (no writer holds it) and its CRC32C
     * matches its version, length and payload; otherwise the read is tried again, up to the client's record
     * attempts, then fails with {@link TornRecordException}.
     */
    public Mono<ByteBuf> readRecord(long offset, int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity " + capacity + " must not be negative");
        }
        return region.readRecord(offset, capacity);
    }

    /**
     * Writes the readable octets of {@code payload} as the record at {@code offset}: takes the record's lock with
     * Compare-and-Swap (version even to odd), writes length, checksum and payload, and releases it (version odd to
     * the next even). Needs WRITE and ATOMIC rights. The caller lays records out: the record occupies
     * {@link RecordLayout#footprint(int)} octets.
     */
    public Mono<Void> writeRecord(long offset, ByteBuf payload) {
        Objects.requireNonNull(payload, "payload");
        return region.writeRecord(offset, payload);
    }

    // ---- typed values, as versioned records through the client's codec ----

    /** Reads the value of type {@code type} stored at {@code offset} by {@link #write(long, Object)}. */
    public <T> Mono<T> read(long offset, Class<T> type) {
        Objects.requireNonNull(type, "type");
        return region.readValue(offset, type);
    }

    /** Writes {@code value}, encoded by the client's codec, as the versioned record at {@code offset}. */
    public Mono<Void> write(long offset, Object value) {
        Objects.requireNonNull(value, "value");
        if (value instanceof ByteBuf data) {
            return write(offset, data);
        }
        return region.writeValue(offset, value);
    }

    @Override
    public String toString() {
        return "RemoteRegion{" + region + "}";
    }
}
