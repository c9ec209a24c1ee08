package io.softrdma.reactive.internal;

import io.softrdma.reactive.spi.PendingOperation;
import io.softrdma.reactive.spi.ReceiveSlots;
import io.softrdma.verbs.WorkCompletion;

/**
 * The work requests a session has posted and not yet seen complete, by work request id: each id names
 * a slot and its generation, so that a late completion can never reach the slot's next user.
 *
 * <p>Note: event loop only.
 */
public final class Operations {

    private final PendingOperation[] slots;
    private final int[] generations;
    private final int[] free;
    private int freeCount;
    private int inUse;

    public Operations(int capacity) {
        slots = new PendingOperation[capacity];
        generations = new int[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    /** Whether another operation fits. */
    public boolean hasRoom() {
        return freeCount > 0;
    }

    public int inUse() {
        return inUse;
    }

    /** Files {@code p} and returns the work request id to post with. */
    public long add(PendingOperation p) {
        if (freeCount == 0) {
            throw new IllegalStateException("more than " + slots.length + " operations outstanding");
        }
        int slot = free[--freeCount];
        slots[slot] = p;
        inUse++;
        return ((long) generations[slot] << 32) | slot;
    }

    /** Takes back the entry of a work request that was never posted. */
    public PendingOperation remove(long wrId) {
        int slot = (int) wrId;
        if (slot < 0 || slot >= slots.length || generations[slot] != (int) (wrId >>> 32) || slots[slot] == null) {
            return null;
        }
        PendingOperation p = slots[slot];
        slots[slot] = null;
        // 30 bits: ids stay clear of ReceiveSlots.RECEIVE_TAG (bit 62) however often a slot is reused.
        generations[slot] = (generations[slot] + 1) & 0x3FFF_FFFF;
        free[freeCount++] = slot;
        inUse--;
        return p;
    }

    /** Hands a completion to whoever waits for it. */
    public void complete(WorkCompletion c) {
        PendingOperation p = remove(c.wrId());
        if (p != null) {
            p.complete(c);
        }
    }

    /** Fails everything still waiting (the session ended). */
    public void failAll(Throwable cause) {
        for (int slot = 0; slot < slots.length; slot++) {
            PendingOperation p = slots[slot];
            if (p != null) {
                remove(((long) generations[slot] << 32) | slot);
                p.fail(cause);
            }
        }
    }
}
