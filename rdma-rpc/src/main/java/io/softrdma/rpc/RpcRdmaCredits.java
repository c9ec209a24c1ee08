package io.softrdma.rpc;

/**
 * The requester's credits (RFC 8166 §3.3): how many calls may be outstanding at once. The requester asks for
 * {@link #requested()} in every call; the responder grants a number in every reply, and that number replaces the
 * last. Before the first reply the grant is 1. As Linux's client does ({@code rpcrdma_update_cwnd}): a grant of 0
 * is taken as 1, so a connection can always make progress, and a grant above what this side can use (its receive
 * buffers) is clamped to it. A new connection starts over ({@link #reset()}).
 *
 * <p>Note: not thread safe; one connection's event loop.
 */
public final class RpcRdmaCredits {
    private final int max;
    private int granted = 1;
    private long lastGrant = -1;
    private int outstanding;

    /** @param max the most calls this side can have outstanding (one receive buffer each) */
    public RpcRdmaCredits(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("credits must allow at least one call, not " + max);
        }
        this.max = max;
    }

    /** What every call asks for: as many as this side can use. */
    public int requested() {
        return max;
    }

    /** The calls that may be outstanding now: the last grant after the 0→1 and clamping rules (1 before one). */
    public int granted() {
        return granted;
    }

    /** The responder's last grant as it sent it, or -1 before the first reply. */
    public long lastGrant() {
        return lastGrant;
    }

    public int outstanding() {
        return outstanding;
    }

    /** Whether another call may go now, and if so counts it. */
    public boolean tryAcquire() {
        if (outstanding >= granted) {
            return false;
        }
        outstanding++;
        return true;
    }

    /** A reply arrived with {@code grant} (RFC 8166 §3.3.1): it ends one call and sets the grant. */
    public void replied(long grant) {
        if (outstanding > 0) {
            outstanding--;
        }
        lastGrant = grant;
        granted = (int) Math.max(1, Math.min(max, grant));
    }

    /** A call ended without a reply (it failed locally, or the connection ended). */
    public void released() {
        if (outstanding > 0) {
            outstanding--;
        }
    }

    /** A new connection: one credit until the first reply. */
    public void reset() {
        granted = 1;
        lastGrant = -1;
        outstanding = 0;
    }

    @Override
    public String toString() {
        return "credits{granted " + granted + ", outstanding " + outstanding + ", max " + max + "}";
    }
}
