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
import java.util.ArrayDeque;

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

        /** A view was released and its slot is free: post again if wanted. */
        void returned();
    }

    private final QueuePair qp;
    private final EventLoop loop;
    private final MemoryRegion arena;
    private final int slotSize;
    private final Slot[] slots;
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    private Owner owner;

    /**
     * Allocates and registers the arena for {@code qp} (local access only: the peer places by Send, never by tag).
     *
     * @param count slots, at most the queue pair's receive queue depth
     * @param slotSize octets each: the largest Send this side takes
     */
    public ReceiveSlots(ProtectionDomain pd, QueuePair qp, EventLoop loop, int count, int slotSize) {
        this.qp = qp;
        this.loop = loop;
        this.slotSize = slotSize;
        this.arena = pd.allocate(Math.multiplyExact(count, slotSize), Access.of(Access.LOCAL_WRITE));
        this.slots = new Slot[count];
        for (int i = 0; i < count; i++) {
            slots[i] = new Slot(i);
            free.add(slots[i]);
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

    /** Slots free to post. */
    public int free() {
        return free.size();
    }

    /** Octets per slot. */
    public int slotSize() {
        return slotSize;
    }

    /** The registered memory all slots share; {@link Slot#offset()} says where each starts. */
    public ByteBuf memory() {
        return arena.buffer();
    }

    /**
     * Posts up to {@code max} free slots; returns how many went (fewer if the queue pair refuses, as while it
     * closes).
     */
    public int post(int max) {
        int n = Math.min(max, free.size());
        int posted = 0;
        for (; posted < n; posted++) {
            Slot slot = free.poll();
            try {
                qp.postReceive(slot.request);
            } catch (RuntimeException e) {
                free.add(slot);
                break;
            }
        }
        return posted;
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

    /** One receive buffer. */
    public final class Slot {
        private final int index;
        private final SlotBuffer view;
        private final ReceiveWorkRequest request;
        private final Runnable returnedOnLoop = this::returned;
        private int length;
        private int invalidatedStag;

        Slot(int index) {
            this.index = index;
            this.view = new SlotBuffer(arena.buffer().alloc(), arena.buffer().nioBuffer(index * slotSize, slotSize),
                    this::onReleased);
            this.request = ReceiveWorkRequest.of(RECEIVE_TAG | index, new ScatterGatherEntry(arena,
                    (long) index * slotSize, slotSize));
        }

        /** Where the slot starts in {@link ReceiveSlots#memory()}. */
        public int offset() {
            return index * slotSize;
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
