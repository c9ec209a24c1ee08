package io.softrdma.reactive.spi;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionStatus;
import io.softrdma.reactive.ReceivePool;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue pair's receive buffers: {@code count} slots of {@code slotSize} octets carved from one registered region,
 * posted when the protocol above asks (RFC 5040 §5.3: each Send lands in the buffer of the next posted Receive, so
 * what is posted is what the peer may send). Messaging and RPC-over-RDMA both receive through this arena.
 *
 * <p>A slot is posted, holding a message, or lent downstream as a view ({@link Slot#view}); the view's release
 * returns the slot, and the owner hears of it ({@link Owner#returned}) to post it again and grant credit. Each slot
 * posts the same work request every time (its id is {@link #RECEIVE_TAG} and the slot's index), so reposting
 * allocates nothing.
 *
 * <p>With a {@link ReceivePool} (a server's sessions share one, as a verbs shared receive queue), only the first
 * {@link ReceivePool#DEDICATED_BUFFERS} slots are carved from the arena; each further slot gets a registered buffer
 * of its own from the pool just before it is posted (so the credit for it always has a buffer), and gives it back
 * as soon as it is free and not posted again at once — memory follows demand, not the receive queue's depth. When
 * the pool is spent, fewer slots are posted and the owner hears {@link Owner#returned} once a buffer comes back.
 *
 * <p>It is long because one concern has three shapes: dedicated slots, slots backed from the shared pool, and each
 * slot's lent views (one for a message, one per message of a BATCH), all of which must return the slot exactly once.
 *
 * <p>Thread safety: the event loop only, but for releasing a view, which hands over to the loop.
 */
public final class ReceiveSlots {
    /** The bit that marks a receive's work request id; ids of sends never have it (see {@link Operations}). */
    public static final long RECEIVE_TAG = 1L << 62;

    /** Who receives through the slots. Called on the event loop. */
    public interface Owner {
        /**
         * A Send landed in {@code slot} ({@link Slot#length()} octets). The owner hands it on as a
         * {@link Slot#view view}, or frees the slot ({@link Slot#free()}).
         */
        void received(Slot slot, WorkCompletion completion);

        /** Immediate Data arrived in {@code slot} (RFC 7306); the slot is free again already. */
        default void receivedImmediate(long data) {
            throw new IllegalStateException("Immediate Data arrived where none was agreed to");
        }

        /** A view was released and its slot is free, or the pool has a buffer again: post again if wanted. */
        void returned();
    }

    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final EventLoop loop;
    private final MemoryRegion arena;
    private final int slotSize;
    private final Slot[] slots;
    /** Slots with memory, not posted: the dedicated ones, and pooled ones until {@link #post} gives them back. */
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    /** Pooled slots without memory. */
    private final ArrayDeque<Slot> unbacked = new ArrayDeque<>();
    private final ReceivePool pool;
    private final Runnable wake;
    /** Pooled slots with a buffer of the pool's: posted, holding a message, or free. */
    private int borrowed;
    private boolean waitingForPool;
    private boolean trimScheduled;
    private final Runnable trim = this::trim;
    private boolean closed;
    private Owner owner;

    /**
     * Allocates and registers the arena for {@code qp} (local access only: the peer places by Send, never by tag).
     *
     * @param count slots, at most the queue pair's receive queue depth
     * @param slotSize octets each: the largest Send this side takes
     */
    public ReceiveSlots(ProtectionDomain pd, QueuePair qp, EventLoop loop, int count, int slotSize) {
        this(pd, qp, loop, count, slotSize, null);
    }

    /**
     * As {@link #ReceiveSlots(ProtectionDomain, QueuePair, EventLoop, int, int)}, with the slots beyond
     * {@link ReceivePool#DEDICATED_BUFFERS} backed from {@code pool} only while they are posted or hold a message.
     *
     * @param pool the shared budget, or null for every slot carved from the arena up front
     */
    public ReceiveSlots(ProtectionDomain pd, QueuePair qp, EventLoop loop, int count, int slotSize, ReceivePool pool) {
        this.pd = pd;
        this.qp = qp;
        this.loop = loop;
        this.slotSize = slotSize;
        this.pool = pool;
        int dedicated = pool == null ? count : Math.min(count, ReceivePool.DEDICATED_BUFFERS);
        this.arena = pd.allocate(Math.multiplyExact(dedicated, slotSize), Access.of(Access.LOCAL_WRITE));
        this.slots = new Slot[count];
        for (int i = 0; i < count; i++) {
            slots[i] = new Slot(i, i < dedicated);
            (i < dedicated ? free : unbacked).add(slots[i]);
        }
        this.wake = pool == null ? null : () -> loop.execute(this::woken);
        if (pool != null) {
            pool.attach();
        }
    }

    /** Sets who receives; before the first post. */
    public void owner(Owner owner) {
        this.owner = owner;
    }

    /** Whether {@code wrId} is a receive's. */
    public static boolean isReceive(long wrId) {
        return (wrId & RECEIVE_TAG) != 0;
    }

    /** Slots free to post without drawing on the pool. */
    public int free() {
        return free.size();
    }

    /** Pooled slots holding a buffer of the pool's now (posted, holding a message, or about to be given back). */
    public int borrowed() {
        return borrowed;
    }

    /** Octets of receive buffers registered now: the dedicated slots and those backed from the pool. Racy off the loop. */
    public long registeredBytes() {
        return (long) (slots.length - unbacked.size()) * slotSize;
    }

    /** Octets per slot. */
    public int slotSize() {
        return slotSize;
    }

    /**
     * The registered memory the dedicated slots share; {@link Slot#offset()} says where each starts. Without a pool
     * every slot is dedicated; with one, read a slot through {@link Slot#memory()}.
     */
    public ByteBuf memory() {
        return arena.buffer();
    }

    /**
     * Posts up to {@code max} slots, drawing buffers from the pool when the free ones run out; returns how many went
     * (fewer if the pool is spent, or the queue pair refuses, as while it closes). Pooled slots left free go back
     * to the pool.
     */
    public int post(int max) {
        if (closed) {
            return 0;
        }
        int posted = 0;
        while (posted < max) {
            Slot slot = free.poll();
            if (slot != null && !slot.dedicated && aboveShare()) {
                // Sessions wait for the pool and this one holds more than its share: the buffer goes to them.
                giveBack(slot);
                continue;
            }
            if (slot == null) {
                slot = aboveShare() ? null : borrow();
                if (slot == null) {
                    break;
                }
            }
            try {
                qp.postReceive(slot.request);
            } catch (RuntimeException e) {
                free.addFirst(slot);
                break;
            }
            posted++;
        }
        if (pool != null && !trimScheduled && hasFreePooled()) {
            // Not needed now, but perhaps in a moment (a request/response session frees a buffer before its next
            // request asks for one again): given back only if still free after a while, not registered anew for
            // every message.
            trimScheduled = true;
            loop.schedule(trim, TRIM_DELAY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        return posted;
    }

    /** How long a pooled buffer stays with its session, free, before it goes back to the pool. */
    static final long TRIM_DELAY_MILLIS = 50;

    private boolean hasFreePooled() {
        for (Slot s : free) {
            if (!s.dedicated) {
                return true;
            }
        }
        return false;
    }

    /** Gives back the pooled buffers still free (on the loop). */
    private void trim() {
        trimScheduled = false;
        if (!closed) {
            giveBackFree();
        }
    }

    /** Whether others wait for the pool while this session holds at least its share of it. */
    private boolean aboveShare() {
        return pool != null && borrowed >= pool.share(slotSize) && pool.contended();
    }

    /** A pooled slot with a fresh buffer from the pool, or null if the pool is spent (then it wakes this later). */
    private Slot borrow() {
        if (pool == null || unbacked.isEmpty()) {
            return null;
        }
        if (!pool.tryAcquire(slotSize)) {
            if (!waitingForPool) {
                waitingForPool = true;
                pool.await(wake, slotSize);
            }
            return null;
        }
        MemoryRegion buffer;
        try {
            buffer = pd.allocate(slotSize, Access.of(Access.LOCAL_WRITE));
        } catch (RuntimeException e) {
            pool.release(slotSize);
            throw e;
        }
        Slot slot = unbacked.poll();
        slot.back(buffer);
        borrowed++;
        return slot;
    }

    /** Gives the buffers of free pooled slots back to the pool: they are not needed now. */
    private void giveBackFree() {
        for (int n = free.size(); n > 0; n--) {
            Slot slot = free.poll();
            if (slot.dedicated) {
                free.add(slot);
            } else {
                giveBack(slot);
            }
        }
    }

    private void giveBack(Slot slot) {
        slot.unback();
        unbacked.add(slot);
        borrowed--;
        pool.release(slotSize);
    }

    /** The pool has a buffer again (on the loop): the owner posts if it still wants to, or the wake-up passes on. */
    private void woken() {
        waitingForPool = false;
        int before = borrowed;
        if (!closed) {
            owner.returned();
        }
        if (borrowed <= before && !waitingForPool) {
            pool.wakeNext();
        }
    }

    /**
     * The session ended: the pool gets back every buffer lent to it now (the protection domain's close releases the
     * memory), and nothing is posted any more. Idempotent.
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (pool != null) {
            pool.detach();
            for (; borrowed > 0; borrowed--) {
                pool.release(slotSize);
            }
        }
    }

    /** A receive completed: its slot goes to the owner, or back to the free list if flushed. */
    public void completed(WorkCompletion c) {
        Slot slot = slots[(int) (c.wrId() & ~RECEIVE_TAG)];
        if (c.status() != WorkCompletionStatus.SUCCESS) {
            free.add(slot);
            return;
        }
        if (c.opcode() == io.softrdma.verbs.WorkCompletionOpcode.RECEIVE_IMMEDIATE) {
            // RFC 7306 Immediate Data took the buffer and placed nothing in it: free at once.
            free.add(slot);
            owner.receivedImmediate(c.immediateData());
            return;
        }
        slot.length = (int) c.byteLength();
        slot.invalidatedStag = c.invalidated() ? c.invalidatedStag() : 0;
        owner.received(slot, c);
    }

    private static final SlotBuffer[] NO_PARTS = new SlotBuffer[0];

    /** One receive buffer. */
    public final class Slot {
        private final int index;
        private final boolean dedicated;
        private final Runnable returnedOnLoop = this::returned;
        /** Where the slot's octets are: the arena, or (pooled) a buffer of its own while it has one. */
        private ByteBuf memory;
        private int offset;
        private SlotBuffer view;
        /**
         * The views of a BATCH's messages (docs/protocol.md), made as a batch first needs them and kept with the slot,
         * so a steady stream of batches allocates nothing; {@code lent} counts those not yet released.
         */
        private SlotBuffer[] parts = NO_PARTS;
        private final AtomicInteger lent = new AtomicInteger();
        private final Runnable partReleased = this::partReleased;
        private ReceiveWorkRequest request;
        private MemoryRegion own;
        private int length;
        private int invalidatedStag;

        Slot(int index, boolean dedicated) {
            this.index = index;
            this.dedicated = dedicated;
            if (dedicated) {
                attach(arena, index * slotSize);
            }
        }

        private void attach(MemoryRegion region, int at) {
            this.memory = region.buffer();
            this.offset = at;
            this.view = new SlotBuffer(memory.alloc(), memory.nioBuffer(at, slotSize), this::onReleased);
            this.parts = NO_PARTS;
            this.request = ReceiveWorkRequest.of(RECEIVE_TAG | index, new ScatterGatherEntry(region, at, slotSize));
        }

        /** A pooled slot gets a buffer of its own. */
        void back(MemoryRegion buffer) {
            own = buffer;
            attach(buffer, 0);
        }

        /** A pooled slot gives its buffer up (deregistered, its memory released). */
        void unback() {
            MemoryRegion r = own;
            own = null;
            memory = null;
            view = null;
            parts = NO_PARTS;
            request = null;
            r.close();
        }

        /** The registered memory the slot is in: {@link ReceiveSlots#memory()} for a dedicated slot. */
        public ByteBuf memory() {
            return memory;
        }

        /** Where the slot starts in {@link #memory()}. */
        public int offset() {
            return offset;
        }

        /** Octets the Send placed. */
        public int length() {
            return length;
        }

        /** The STag the Send with Invalidate named (RFC 5040 §5.3), or 0. */
        public int invalidatedStag() {
            return invalidatedStag;
        }

        /**
         * The slot's octets {@code [from, to)} as a buffer (no copy) that returns the slot when its reference count
         * reaches 0. One view per slot, reused for the slot's next message: nothing may use it after release.
         */
        public ByteBuf view(int from, int to) {
            return view.reuse(from, to);
        }

        /**
         * Lends the slot as {@code count} separate messages, each its own view with its own reference count (see
         * {@link #part}); the slot returns once every one of them is released. Call before handing on the first part,
         * which may be released at once.
         */
        public void lendParts(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("count must be at least 1, not " + count);
            }
            if (parts.length < count) {
                SlotBuffer[] grown = Arrays.copyOf(parts, Math.max(count, 2 * parts.length));
                for (int i = parts.length; i < grown.length; i++) {
                    grown[i] = new SlotBuffer(memory.alloc(), memory.nioBuffer(offset, slotSize), partReleased);
                }
                parts = grown;
            }
            lent.set(count);
        }

        /**
         * Part {@code i} of those {@link #lendParts lent}: the slot's octets {@code [from, to)} with a reference count
         * of its own. Reused for the slot's next batch, like {@link #view}: nothing may use it after release.
         */
        public ByteBuf part(int i, int from, int to) {
            return parts[i].reuse(from, to);
        }

        private void partReleased() {
            if (lent.decrementAndGet() == 0) {
                onReleased();
            }
        }

        /** Back to the free list without a view (a control message, or one already copied out). */
        public void free() {
            free.add(this);
        }

        private void onReleased() {
            if (loop.inEventLoop()) {
                returned();
            } else {
                loop.execute(returnedOnLoop);
            }
        }

        private void returned() {
            free.add(this);
            owner.returned();
        }
    }
}
