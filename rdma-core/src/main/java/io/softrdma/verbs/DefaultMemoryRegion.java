package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.softrdma.internal.rdmap.AtomicRequestCodec;
import io.softrdma.internal.transport.ByteBufCopy;
import io.softrdma.rdmap.AtomicOperation;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A registered region. The STag check on the receive path is one volatile read: {@code validStag}
 * holds the current STag while the region is valid and 0 (never a region's STag: index 0 is unused)
 * otherwise.
 */
final class DefaultMemoryRegion implements MemoryRegion {
    /** The outcome of checking a tagged access against a region (RFC 5040 §7.2, RFC 5041 §7.2). */
    enum Check {
        OK, INVALID_STAG, NOT_ASSOCIATED, ACCESS_RIGHTS, BASE_OR_BOUNDS, TO_WRAP
    }

    private final DefaultProtectionDomain pd;
    private final StagTable table;
    private final ByteBuf registered;
    private final ByteBuf view;
    /**
     * All of {@code registered} as one NIO buffer, used only with absolute operations (so by any thread), for
     * copies that allocate nothing where Netty has no {@code sun.misc.Unsafe} (Java 25: {@link ByteBufCopy});
     * {@code null} for memory in more than one piece.
     */
    private final ByteBuffer nio;
    private final int length;
    private final long baseTaggedOffset;
    private final Set<Access> access;
    private final boolean localWrite;
    private final boolean remoteRead;
    private final boolean remoteWrite;
    private final boolean remoteAtomic;
    /** Registered by {@link ProtectionDomain#registerUnchanging}: its octets do not change while registered. */
    private final boolean unchanging;
    /** A view of the memory for atomic operations, made on the first one (most regions never see one). */
    private volatile ByteBuffer atomicView;
    private volatile int index;
    private volatile int stag;
    private volatile int validStag;
    private volatile boolean closed;

    DefaultMemoryRegion(DefaultProtectionDomain pd, StagTable table, ByteBuf registered, long baseTaggedOffset,
            Set<Access> access, boolean unchanging) {
        this.pd = pd;
        this.table = table;
        this.registered = registered;
        this.length = registered.capacity();
        this.view = registered.slice(0, length);
        this.nio = registered.nioBufferCount() == 1 ? registered.nioBuffer(0, length) : null;
        this.baseTaggedOffset = baseTaggedOffset;
        EnumSet<Access> copy = access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access);
        this.access = Collections.unmodifiableSet(copy);
        this.localWrite = copy.contains(Access.LOCAL_WRITE);
        this.remoteRead = copy.contains(Access.REMOTE_READ);
        this.remoteWrite = copy.contains(Access.REMOTE_WRITE);
        this.remoteAtomic = copy.contains(Access.REMOTE_ATOMIC);
        this.unchanging = unchanging;
    }

    /** Whether the registrant promised the octets do not change while registered: Read Responses need no copy. */
    boolean unchanging() {
        return unchanging;
    }

    /** Called once by {@link StagTable#add}, before the region is published. */
    void activate(int index, int key) {
        this.index = index;
        int s = StagTable.stag(index, key);
        this.stag = s;
        this.validStag = s;
    }

    int index() {
        return index;
    }

    @Override
    public int stag() {
        return stag;
    }

    @Override
    public long baseTaggedOffset() {
        return baseTaggedOffset;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    DefaultProtectionDomain pd() {
        return pd;
    }

    @Override
    public ByteBuf buffer() {
        return view;
    }

    /** The registered buffer itself, for zero-copy slices and placement (index 0 = first octet). */
    ByteBuf memory() {
        return registered;
    }

    /**
     * Copies {@code length} octets of {@code src}, a buffer of the caller's event loop, from {@code srcIndex} to
     * the registered buffer's {@code index}: as {@code memory().setBytes}, allocating nothing on any JDK.
     */
    void place(int index, ByteBuf src, int srcIndex, int length) {
        ByteBufCopy.place(src, srcIndex, registered, nio, index, length);
    }

    /**
     * A retained slice of {@code length} octets from {@code index}, to send as they are: of the one component that
     * holds them when the memory is a composite (an RSocket frame is one: header and payload), so that the encoder's
     * CRC and TCP's gathering write reach the memory without an array of NIO buffers per segment (the composite's
     * {@code nioBuffers}, 15 KB per 1 MiB message); of the whole memory otherwise.
     */
    ByteBuf retainedSlice(int index, int length) {
        if (registered instanceof CompositeByteBuf composite && length > 0) {
            int c = composite.toComponentIndex(index);
            int start = composite.toByteIndex(c);
            ByteBuf part = composite.internalComponent(c);
            if (index + length <= start + part.capacity()) {
                return part.retainedSlice(index - start, length);
            }
        }
        return registered.retainedSlice(index, length);
    }

    /**
     * Appends {@code length} octets from the registered buffer's {@code index} to {@code dst}, a buffer of the
     * caller's event loop: as {@code dst.writeBytes(memory(), index, length)}, allocating nothing on any JDK.
     */
    void appendTo(int index, ByteBuf dst, int length) {
        ByteBufCopy.append(registered, nio, index, dst, length);
    }

    boolean localWrite() {
        return localWrite;
    }

    @Override
    public boolean isValid() {
        return validStag != 0;
    }

    @Override
    public RemoteMemory advertise() {
        return new RemoteMemory(stag, baseTaggedOffset, length);
    }

    @Override
    public void invalidate() {
        validStag = 0;
    }

    /** Remote invalidation (Send with Invalidate): only a valid STag of this region can be invalidated. */
    boolean invalidateRemotely(int stag) {
        if (validStag != stag || stag == 0) {
            return false;
        }
        validStag = 0;
        return true;
    }

    @Override
    public synchronized int reregister() {
        if (closed) {
            throw new IllegalStateException("memory region 0x" + Integer.toHexString(stag) + " is closed");
        }
        int key = table.newKey(StagTable.key(stag));
        int s = StagTable.stag(index, key);
        stag = s;
        validStag = s;
        return s;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        validStag = 0;
        table.remove(index);
        pd.forget(this);
        registered.release();
    }

    /**
     * Checks a remote access of {@code length} octets at tagged offset {@code to} through {@code stag}
     * from a stream of protection domain {@code streamPd}: STag valid, same protection domain, right
     * granted, within bounds, no TO wrap — in the order Linux siw checks them.
     */
    Check check(int stag, long to, long length, boolean write, DefaultProtectionDomain streamPd) {
        if (validStag != stag || stag == 0) {
            return Check.INVALID_STAG;
        }
        if (streamPd != pd) {
            return Check.NOT_ASSOCIATED;
        }
        if (write ? !remoteWrite : !remoteRead) {
            return Check.ACCESS_RIGHTS;
        }
        return checkBounds(to, length);
    }

    /**
     * Checks an RFC 7306 Atomic Request for the 64-bit word at {@code to}: as {@link #check}, with the
     * REMOTE_ATOMIC right. The word's alignment is checked after, by {@link #wordAligned}: RFC 7306 §8.2 gives it
     * an error of its own.
     */
    Check checkAtomic(int stag, long to, DefaultProtectionDomain streamPd) {
        if (validStag != stag || stag == 0) {
            return Check.INVALID_STAG;
        }
        if (streamPd != pd) {
            return Check.NOT_ASSOCIATED;
        }
        if (!remoteAtomic) {
            return Check.ACCESS_RIGHTS;
        }
        return checkBounds(to, AtomicRequestCodec.OPERAND_LENGTH);
    }

    /**
     * Whether the 64-bit word at tagged offset {@code to}, which {@link #checkAtomic} accepted, lies at a memory
     * address that is a multiple of 8. RFC 7306 §5.2.1 asks the Remote TO to "represent a ULP Buffer address that
     * is 64-bit aligned", and the TO itself "MAY start at an arbitrary offset": so the address decides, not the
     * TO. A region over an odd slice has aligned TOs on unaligned words, and a region whose base TO is odd the
     * reverse. The offset of a direct buffer's address is stable, so the answer never changes for a word.
     */
    boolean wordAligned(long to) {
        return atomicView().alignmentOffset(indexOf(to), AtomicRequestCodec.OPERAND_LENGTH) == 0;
    }

    private ByteBuffer atomicView() {
        ByteBuffer view = atomicView;
        if (view == null) {
            view = registered.nioBuffer(0, length);
            atomicView = view;
        }
        return view;
    }

    /**
     * Applies an atomic operation to the word at tagged offset {@code to}, which {@link #checkAtomic} and
     * {@link #wordAligned} accepted. Under the region's lock, as {@link #close()} is: a region closed meanwhile
     * (its memory back in the pool) is never written.
     *
     * @throws IllegalStateException if the region was closed or invalidated since the check
     */
    synchronized long atomic(int stag, long to, AtomicOperation op, long addOrSwapData, long addOrSwapMask,
            long compareData, long compareMask) {
        if (closed || validStag != stag) {
            throw new IllegalStateException("region 0x" + Integer.toHexString(stag) + " closed or invalidated");
        }
        return RemoteAtomics.apply(atomicView(), indexOf(to), op, addOrSwapData, addOrSwapMask, compareData,
                compareMask);
    }

    /** §7.2 c-e: TO within the region, TO + length within it, and no wrap past 2^64. */
    Check checkBounds(long to, long length) {
        long end = to + length;
        if (Long.compareUnsigned(end, to) < 0) {
            return Check.TO_WRAP;
        }
        if (Long.compareUnsigned(to, baseTaggedOffset) < 0
                || Long.compareUnsigned(end, baseTaggedOffset + this.length) > 0) {
            return Check.BASE_OR_BOUNDS;
        }
        return Check.OK;
    }

    /** The buffer index of tagged offset {@code to}, which {@link #checkBounds} accepted. */
    int indexOf(long to) {
        return (int) (to - baseTaggedOffset);
    }

    @Override
    public String toString() {
        return String.format("MemoryRegion{STag=0x%08x%s base TO=0x%x length=%d access=%s}", stag,
                isValid() ? "" : " (invalid)", baseTaggedOffset, length, access);
    }
}
