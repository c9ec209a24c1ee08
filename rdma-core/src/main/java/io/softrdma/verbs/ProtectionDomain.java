package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A protection domain (RFC 5040 §8.1.1 requirement 1): memory regions and queue pairs belong to one,
 * and a stream may only use STags of its own domain — any other gets "STag not associated with the
 * stream".
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public interface ProtectionDomain extends AutoCloseable {
    RdmaDevice device();

    /**
     * Registers the whole capacity of a direct buffer, zero-based (tagged offsets 0 to capacity - 1).
     * The region retains the buffer and releases its reference when closed; the caller keeps its own.
     *
     * @throws IllegalArgumentException if the buffer is not direct, or REMOTE_WRITE is asked without
     *     LOCAL_WRITE
     */
    MemoryRegion register(ByteBuf buffer, Set<Access> access);

    /**
     * As {@link #register(ByteBuf, Set)}, with the tagged offset of the first octet chosen by the
     * caller — Linux peers advertise virtual addresses this way.
     */
    MemoryRegion register(ByteBuf buffer, Set<Access> access, long baseTaggedOffset);

    /**
     * Registers the whole capacity of a direct buffer, zero-based, for the peer to RDMA Read ({@link
     * Access#REMOTE_READ} only), on the caller's promise that its octets do not change while it is registered: a
     * message lent to the peer until it says it has read it (the messaging layer's large messages are). Read
     * Responses then go from the memory itself even with MPA CRC on, where other regions' are copied first (MPA's
     * CRC is computed as a segment is framed and TCP takes the octets later, so memory that changed in between would
     * reach the peer under a CRC that fails, RFC 5044 §4.4). Break the promise and the peer may see exactly that: a
     * CRC error, which ends the connection (RFC 5044 §8).
     *
     * @throws IllegalArgumentException if the buffer is not direct
     */
    MemoryRegion registerUnchanging(ByteBuf buffer);

    /** Registers the whole capacity of a direct {@link ByteBuffer}, zero-based. */
    MemoryRegion register(ByteBuffer buffer, Set<Access> access);

    /** Allocates {@code length} octets of pooled direct memory and registers them, zero-based. */
    MemoryRegion allocate(int length, Set<Access> access);

    /** Creates a queue pair in this domain; it starts IDLE and becomes RTS when connected. */
    QueuePair createQueuePair(QueuePairConfig config);

    /**
     * Deregisters every memory region still registered in this domain (their buffers are released).
     * Queue pairs are closed on their own; close them first.
     */
    @Override
    void close();
}
