package io.softrdma.reactive.internal.protocol;

/**
 * The Send credits of one connection, both ways: what the peer granted this side ({@link #grant},
 * {@link #tryAcquire}) and what this side grants the peer ({@link #demand}, {@link #buffersToPost},
 * {@link #posted}, {@link #takeGrant}, {@link #received}, {@link #delivered}, {@link #standaloneUpdateNeeded}).
 * Pure bookkeeping: it posts, sends and delivers nothing itself; the session does, and tells it.
 *
 * <h2>Why credits</h2>
 * Every RDMA Send consumes one receive buffer the peer posted beforehand (RFC 5040 §5.3). A Send that finds none
 * is a fatal DDP error (RFC 5041 §7.1: an untagged segment needs a buffer for its queue and MSN), reported as
 * "no buffer available" (RFC 5041 §7.2: Layer 1, EType 2, Code 0x02), and the queue pair Terminates the stream.
 * As in RPC-over-RDMA (RFC 8166 §3.3.1), a side therefore sends only against credits: one credit is one receive
 * buffer the peer has posted and announced. Credits are counted in messages, granted as a delta in the
 * {@code credits} field of every {@link MessageHeader}, and so coalesce into whatever message goes next. A peer
 * that sends beyond its credits is stopped by construction — its Send finds no buffer and the queue pair
 * Terminates — never by an unbounded queue.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li><b>Initial credits.</b> A header can only be sent against a credit, so the first grant cannot ride in one:
 *       each side posts at least {@link #INITIAL_CREDITS} receive buffers before its connection is established
 *       (a queue pair takes receives from IDLE on), and each side starts holding {@link #INITIAL_CREDITS} credits
 *       from its peer. Whatever else a side posted before then rides as ungranted credit on its first header.</li>
 *   <li><b>Demand-driven posting.</b> Buffers are posted for downstream demand plus a reserve of
 *       {@link #INITIAL_CREDITS}: posted + held = min(demand + 2, receiveQueueDepth), where held counts the buffers
 *       of data
 *       messages received but not yet delivered. A {@code Long.MAX_VALUE} request is therefore capped at
 *       {@code receiveQueueDepth}, not infinite credit.</li>
 *   <li><b>One credit held back.</b> A data message ({@code DATA, REQUEST, RESPONSE, LARGE, ERROR}) needs two
 *       credits available and uses one: the last credit is kept so that a credit update can always be sent. A
 *       control message ({@code CREDIT, READ_DONE}) also needs two, except that it may use the last credit when
 *       its header grants credit ({@link #canAcquire}; SMB Direct's rule too, [MS-SMBD] §3.1.5.1). The
 *       reserve and the held-back credit together let a peer run at most one data message ahead of demand; that
 *       message waits in its receive buffer.</li>
 *   <li><b>Control buffers.</b> A received CREDIT or READ_DONE consumes a buffer but no demand: its buffer is
 *       reposted at once ({@link #buffersToPost} says so) and the credit goes back to the peer on the next header.
 *       </li>
 *   <li><b>Standalone updates</b> ({@link #standaloneUpdateNeeded}) go out only when no other message is about
 *       to carry the grant, and only when needed: the peer is close to running dry and there is credit for new
 *       demand; or the peer is at zero; or the peer cannot send a data message this side is waiting for (demand,
 *       or a {@code READ_DONE} for a region it lent, {@link #expectRelease}).</li>
 * </ul>
 *
 * <h2>Progress</h2>
 * A credit spent on a CREDIT comes back only on another header, which costs a credit in turn: naive rules let two
 * stalled peers bounce one credit forever (livelock) or leave one at zero, unable to announce new demand
 * (deadlock). These rules avoid both: the last credit is spent only on a header that grants credit; a peer at
 * zero is always restored; and a replacement-only grant that would cost this side its last credit is sent only if
 * it leaves the peer at least three credits, enough to return one and still send. A model check that explores
 * every interleaving of two windows with messages in flight, for small depths and demand (CreditWindowTest), finds
 * no state where a side that has data cannot send it while the peer wants it, no cycle of credit-only messages,
 * and no quiet state with a side at zero credits. The one wait it allows is a {@code READ_DONE} delayed while one
 * side holds a message its consumer has not requested; it goes as soon as that consumer asks.
 *
 * <h2>What bounds memory</h2>
 * At most {@code receiveQueueDepth} receive buffers exist per connection, posted or holding a message not yet
 * delivered, each of the negotiated receive inline threshold (RFC 8797 §4.2): memory is at most
 * {@code receiveQueueDepth × inline threshold} per connection, plus the regions RDMA-Read for {@code LARGE}
 * messages (at most ORD at a time, each at most the session's largest message).
 *
 * <h2>How a session uses it</h2>
 * <ol>
 *   <li>Before connecting, and after every change: post {@link #buffersToPost()} receive buffers, then call
 *       {@link #posted(int)}. Buffers must be posted before the header that grants them is sent.</li>
 *   <li>Sending: {@link #tryAcquire(MessageType)}; if true, write {@link #takeGrant()} into the header and send.
 *       After sending a {@code LARGE}, call {@link #expectRelease()}.</li>
 *   <li>Receiving a Send: {@link #grant(int)} with its header's credits, {@link #received(MessageType)}, repost
 *       ({@link #buffersToPost()}); {@link #releaseReceived()} for a {@code READ_DONE} or a Send with Invalidate
 *       of a lent region; hand data messages downstream when there is demand and call {@link #delivered()}.</li>
 *   <li>Downstream {@code request(n)}: {@link #demand(long)} (plus one per request this side sends, so that its
 *       response has a buffer), then post.</li>
 *   <li>When nothing else is about to go out: if {@link #standaloneUpdateNeeded(boolean)}, send a {@code CREDIT}.
 *       </li>
 * </ol>
 *
 * <p>Why this class is long: the credit rules are one state machine (grants, the held-back credit, the reserve,
 * BATCH and LARGE accounting, when a standalone update must go) whose invariants only hold together; its comments
 * carry the reasoning and the proof sketch that the model check in CreditWindowTest exercises.
 *
 * <p>Thread safety: none. A window belongs to its connection's event loop and is called only from it; it takes no
 * locks and allocates nothing after construction.
 */
public final class CreditWindow {
    /**
     * Credits each side holds from its peer when the connection comes up, and the number of receive buffers each
     * side posts for control messages regardless of demand (its reserve). A protocol constant: both sides must
     * agree on it. Each side MUST have posted at least this many receive buffers before its connection is
     * established.
     */
    public static final int INITIAL_CREDITS = 2;

    /** The smallest receive queue depth: the {@link #INITIAL_CREDITS} reserve plus one buffer for a data message. */
    public static final int MIN_RECEIVE_QUEUE_DEPTH = INITIAL_CREDITS + 1;

    /**
     * The largest receive queue depth: {@link MessageHeader#MAX_CREDITS}, so that one header can always carry every
     * ungranted credit.
     */
    public static final int MAX_RECEIVE_QUEUE_DEPTH = MessageHeader.MAX_CREDITS;

    private final int receiveQueueDepth;
    private final int lowWaterMark;

    /** Outbound: credits the peer granted that this side has not used. */
    private long available = INITIAL_CREDITS;

    /** Outstanding downstream demand; Long.MAX_VALUE is unbounded and never decreases. */
    private long demand;
    /** Receive buffers in the receive queue. */
    private int posted;
    /** Data messages received and not yet delivered; each still occupies its buffer. */
    private int held;
    /** Buffers none of whose messages was delivered yet (a BATCH fills one buffer with several of {@link #held}). */
    private int heldBuffers;
    /** Posted buffers the peer has not been told of. */
    private int ungranted;
    /** The part of {@link #ungranted} posted for new demand rather than to replace a control message's buffer. */
    private int fresh;
    /** Buffers consumed by control messages and not yet reposted. */
    private int controlToRepost;
    /** Of the initial credits the peer holds, those whose buffers have not been posted yet. */
    private int pregrantedUnposted = INITIAL_CREDITS;
    /** Credits the peer holds by this side's count: granted minus received (an upper bound while Sends fly). */
    private int peerCredits = INITIAL_CREDITS;
    /** Regions this side lent with LARGE whose release (READ_DONE or Send with Invalidate) has not arrived. */
    private int releasesExpected;

    /**
     * A window for a connection whose receive queue holds at most {@code receiveQueueDepth} buffers: this side
     * holds {@link #INITIAL_CREDITS} from the peer and owes the posting of its first {@link #buffersToPost()}.
     *
     * @param receiveQueueDepth receive buffers per connection at most, posted or holding an undelivered message;
     *        the queue pair's receive queue must hold at least this many; {@link #MIN_RECEIVE_QUEUE_DEPTH} to
     *        {@link #MAX_RECEIVE_QUEUE_DEPTH}
     * @throws IllegalArgumentException if the depth is out of range
     */
    public CreditWindow(int receiveQueueDepth) {
        if (receiveQueueDepth < MIN_RECEIVE_QUEUE_DEPTH || receiveQueueDepth > MAX_RECEIVE_QUEUE_DEPTH) {
            throw new IllegalArgumentException("receiveQueueDepth " + receiveQueueDepth + " is outside "
                    + MIN_RECEIVE_QUEUE_DEPTH + ".." + MAX_RECEIVE_QUEUE_DEPTH + ": the " + INITIAL_CREDITS
                    + " reserved buffers plus at least one for data, and at most what one header can grant");
        }
        this.receiveQueueDepth = receiveQueueDepth;
        this.lowWaterMark = Math.max(1, receiveQueueDepth / 4);
    }

    /** A copy of {@code other}'s state, for the model check in the tests. */
    CreditWindow(CreditWindow other) {
        this.receiveQueueDepth = other.receiveQueueDepth;
        this.lowWaterMark = other.lowWaterMark;
        this.available = other.available;
        this.demand = other.demand;
        this.posted = other.posted;
        this.held = other.held;
        this.heldBuffers = other.heldBuffers;
        this.ungranted = other.ungranted;
        this.fresh = other.fresh;
        this.controlToRepost = other.controlToRepost;
        this.pregrantedUnposted = other.pregrantedUnposted;
        this.peerCredits = other.peerCredits;
        this.releasesExpected = other.releasesExpected;
    }

    /**
     * Receive buffers per connection at most, posted or holding an undelivered message.
     *
     * @return the depth given at construction
     */
    public int receiveQueueDepth() {
        return receiveQueueDepth;
    }

    /**
     * When the peer holds this many credits or fewer, new credit goes to it in a standalone {@code CREDIT} if no
     * other message is about to carry it: {@code max(1, receiveQueueDepth / 4)}.
     *
     * @return the low-water mark, in credits
     */
    public int lowWaterMark() {
        return lowWaterMark;
    }

    // ---------------------------------------------------------------- outbound: what the peer granted this side

    /**
     * Adds the credits a received header granted ({@link MessageHeader#credits}): receive buffers the peer posted
     * since its previous grant. Call it for every received header, whatever its type.
     *
     * @param credits the header's credits field, 0 to {@link MessageHeader#MAX_CREDITS}
     * @throws IllegalArgumentException if {@code credits} is out of range
     */
    public void grant(int credits) {
        if (credits < 0 || credits > MessageHeader.MAX_CREDITS) {
            throw new IllegalArgumentException("a header grants 0.." + MessageHeader.MAX_CREDITS + " credits, not "
                    + credits);
        }
        available += credits;
    }

    /**
     * Whether {@link #tryAcquire} would succeed now, without taking the credit. A data message needs two credits
     * available (one stays held back); a control message ({@code CREDIT}, {@code READ_DONE}) needs two, or one
     * when this side has ungranted credit, which its header will carry.
     *
     * @param type the type of the message to send
     * @return true if a message of that type may be sent now
     */
    public boolean canAcquire(MessageType type) {
        return type.isControl() ? canSendControl() : available >= 2;
    }

    /**
     * Takes one credit for a message of {@code type} if {@link #canAcquire} allows it. On success the caller must
     * send the message, with {@link #takeGrant()} in its header.
     *
     * @param type the type of the message to send
     * @return true if the credit was taken; false if the message must wait for a grant
     */
    public boolean tryAcquire(MessageType type) {
        if (!canAcquire(type)) {
            return false;
        }
        available--;
        return true;
    }

    /**
     * Credits the peer granted that this side has not used: Sends it may have in flight to the peer's posted
     * buffers.
     *
     * @return the available credits
     */
    public long available() {
        return available;
    }

    private boolean canSendControl() {
        return available >= 2 || (available == 1 && ungranted >= 1);
    }

    // ---------------------------------------------------------------- inbound: what this side grants the peer

    /**
     * Adds downstream demand ({@code Subscription.request(n)}, or one for each request this side sends, so that
     * its response has a buffer). Saturates at {@code Long.MAX_VALUE}, which means unbounded; the buffers posted
     * for it are still capped at {@link #receiveQueueDepth()}.
     *
     * @param n the added demand, positive
     * @throws IllegalArgumentException if {@code n} is not positive (Reactive Streams rule 3.9 is the session's to
     *         report)
     */
    public void demand(long n) {
        if (n <= 0) {
            throw new IllegalArgumentException("demand must be positive, not " + n);
        }
        long sum = demand + n;
        demand = sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * Outstanding downstream demand: requested and not yet {@link #delivered()}; {@code Long.MAX_VALUE} if
     * unbounded.
     *
     * @return the demand
     */
    public long outstandingDemand() {
        return demand;
    }

    /**
     * How many more receive buffers to post now: {@code min(demand + INITIAL_CREDITS, receiveQueueDepth) − held
     * − posted}, never negative. It covers buffers to repost after control messages, buffers for new demand, and
     * the initial reserve.
     *
     * @return receive buffers to post, then report with {@link #posted(int)}
     */
    public int buffersToPost() {
        long wanted = demand + INITIAL_CREDITS;
        long budget = Math.min(wanted < 0 ? Long.MAX_VALUE : wanted, receiveQueueDepth);
        long n = budget - heldBuffers - posted;
        return n <= 0 ? 0 : (int) n;
    }

    /**
     * Records receive buffers just posted to the queue pair. They become ungranted credit (after the
     * {@link #INITIAL_CREDITS} the peer already holds), to be carried by the next header ({@link #takeGrant()}).
     *
     * @param n buffers posted, 0 to {@link #buffersToPost()}
     * @throws IllegalArgumentException if {@code n} is negative or more than {@link #buffersToPost()}
     */
    public void posted(int n) {
        int allowed = buffersToPost();
        if (n < 0 || n > allowed) {
            throw new IllegalArgumentException("posted " + n + " receive buffers; 0.." + allowed + " may be posted ("
                    + this + ")");
        }
        posted += n;
        int pregranted = Math.min(n, pregrantedUnposted);
        pregrantedUnposted -= pregranted;
        int newCredit = n - pregranted;
        int replacing = Math.min(newCredit, controlToRepost);
        controlToRepost -= replacing;
        ungranted += newCredit;
        fresh += newCredit - replacing;
    }

    /**
     * The credits to write into the header being sent, and records them as granted. Call it exactly once for
     * every header sent, after {@link #tryAcquire}. Always returns every ungranted credit, since the receive queue
     * depth is at most {@link MessageHeader#MAX_CREDITS}.
     *
     * @return the header's credits field, 0 to {@link MessageHeader#MAX_CREDITS}
     */
    public int takeGrant() {
        int grant = Math.min(ungranted, MessageHeader.MAX_CREDITS);
        ungranted -= grant;
        fresh = Math.min(fresh, ungranted);
        peerCredits += grant;
        return grant;
    }

    /**
     * Records a Send received into one of the posted buffers. A control message ({@code CREDIT},
     * {@code READ_DONE}) frees its buffer at once, to be reposted ({@link #buffersToPost()}); a data message holds
     * its buffer until {@link #delivered()}.
     *
     * @param type the received message's type
     * @throws IllegalStateException if no buffer was posted: the queue pair would have terminated the stream with
     *         "no buffer available" (RFC 5041 §7.1, §7.2) instead of completing a receive, so this is a session
     *         bug
     */
    public void received(MessageType type) {
        received(type, 1);
    }

    /**
     * Records a Send received into one of the posted buffers that carries {@code messages} data messages (a
     * {@code BATCH}); each is held until {@link #delivered(boolean)}. Posting counts buffers (what memory and
     * the peer's credit are made of), demand counts messages: the buffer counts as free once its first message
     * is delivered — as a single message's does — and the rest of a batch meets later demand without new credit.
     * (Physically the buffer returns when the consumer releases every message in it; the session posts only
     * buffers it has.) So a peer still runs at most one buffer ahead of demand, and the reserve always has room
     * for a control message.
     *
     * @param type the received message's type
     * @param messages the data messages the Send carries: 1, or a {@code BATCH}'s count; ignored for a control
     *        message
     * @throws IllegalArgumentException if {@code messages} is below 1, or above 1 for a type other than BATCH
     * @throws IllegalStateException if no buffer was posted (see {@link #received(MessageType)})
     */
    public void received(MessageType type, int messages) {
        if (messages < 1 || (messages > 1 && type != MessageType.BATCH)) {
            throw new IllegalArgumentException("a " + type + " carries 1 message, not " + messages);
        }
        if (posted == 0) {
            throw new IllegalStateException("a " + type + " was received with no receive buffer posted; the queue"
                    + " pair would have terminated the stream (RFC 5041 §7.2, no buffer available) (" + this + ")");
        }
        posted--;
        peerCredits--;
        if (type.isControl()) {
            controlToRepost++;
        } else {
            held += messages;
            heldBuffers++;
        }
    }

    /**
     * Records a data message handed downstream, the only or the first of its buffer: it uses one unit of demand
     * (none if demand is unbounded) and its buffer becomes free. For a {@code LARGE} message, call it when the
     * RDMA-Read message is handed on.
     *
     * @throws IllegalStateException if no data message is held or there is no demand for it
     */
    public void delivered() {
        delivered(true);
    }

    /**
     * Records a data message handed downstream: it uses one unit of demand (none if demand is unbounded), and
     * the first message of a buffer frees the buffer.
     *
     * @param freesBuffer true for the only or first message of its buffer; false for a BATCH's later ones
     * @throws IllegalStateException if no data message is held, there is no demand for it, or (for a later one)
     *         no batch has messages left
     */
    public void delivered(boolean freesBuffer) {
        if (held == 0 || demand == 0 || (freesBuffer ? heldBuffers == 0 : held <= heldBuffers)) {
            throw new IllegalStateException("delivered with " + held + " message(s) held, " + heldBuffers
                    + " buffer(s) not yet started, and demand " + demand
                    + (freesBuffer ? "" : ", a later message of a batch") + " (" + this + ")");
        }
        held--;
        if (freesBuffer) {
            heldBuffers--;
        }
        if (demand != Long.MAX_VALUE) {
            demand--;
        }
    }

    /**
     * Records a region this side lent the peer with a {@code LARGE} message: until its release arrives
     * ({@link #releaseReceived()}), this side keeps the peer able to send the release ({@code READ_DONE}, or its
     * next Send with Invalidate, RFC 8797 §4.1).
     */
    public void expectRelease() {
        releasesExpected++;
    }

    /**
     * Records the release of a region lent with {@link #expectRelease()}: a {@code READ_DONE}, or a Send with
     * Invalidate of its STag.
     *
     * @throws IllegalStateException if no release was expected
     */
    public void releaseReceived() {
        if (releasesExpected == 0) {
            throw new IllegalStateException("a release arrived, but no lent region awaits one (" + this + ")");
        }
        releasesExpected--;
    }

    /**
     * Regions lent with {@link #expectRelease()} whose release has not arrived.
     *
     * @return the count
     */
    public int releasesExpected() {
        return releasesExpected;
    }

    /**
     * Whether to send a {@code CREDIT} on its own now. Call it whenever the window changes and nothing else is
     * about to go out. True only when there is ungranted credit, {@code otherMessagePending} is false, a
     * {@code CREDIT} can be acquired, and one of these holds:
     * <ul>
     *   <li>there is credit for new demand and the peer holds at most {@link #lowWaterMark()} credits;</li>
     *   <li>the peer holds no credit at all (it spent its last one on a control message), so it could not even
     *       announce its own demand;</li>
     *   <li>the peer holds at most one credit, too few for a data message, this side is waiting for one (demand
     *       beyond the held messages, or an {@link #expectRelease() expected release}), and the grant lifts the
     *       peer to two — to three if it costs this side its last credit, so that the peer can return one and
     *       still send.</li>
     * </ul>
     * A buffer reposted after a control message alone never triggers an update while the peer can still send: this
     * is what keeps two idle peers from trading CREDITs forever.
     *
     * @param otherMessagePending true if a message other than a CREDIT will be sent now (its {@link #tryAcquire}
     *        succeeds) and so carries the grant; a message waiting for credit does not count
     * @return true if a standalone {@code CREDIT} should be sent now ({@code tryAcquire(CREDIT)} will succeed)
     */
    public boolean standaloneUpdateNeeded(boolean otherMessagePending) {
        if (otherMessagePending || ungranted == 0) {
            return false;
        }
        if (fresh > 0 && peerCredits <= lowWaterMark) {
            return canSendControl();
        }
        if (peerCredits == 0) {
            return canSendControl();
        }
        boolean waitingForPeer = demand > held || releasesExpected > 0;
        if (peerCredits <= 1 && waitingForPeer && peerCredits + ungranted >= 2) {
            return available >= 2 || (available == 1 && peerCredits + ungranted >= 3);
        }
        return false;
    }

    /**
     * Credits the peer holds by this side's count: granted (including the initial credits) minus Sends received.
     * While the peer's Sends are in flight it holds fewer.
     *
     * @return the peer's credits
     */
    public int peerCredits() {
        return peerCredits;
    }

    /**
     * Receive buffers in the receive queue.
     *
     * @return posted buffers
     */
    public int postedBuffers() {
        return posted;
    }

    /**
     * Data messages received and not yet {@link #delivered()}; each occupies a buffer.
     *
     * @return held messages
     */
    public int heldMessages() {
        return held;
    }

    /**
     * Buffers holding data messages none of which was delivered yet (a BATCH's several messages share one).
     *
     * @return buffers held
     */
    public int heldBuffers() {
        return heldBuffers;
    }

    /**
     * Posted buffers the peer has not been granted yet; the next header carries them.
     *
     * @return ungranted credits
     */
    public int ungrantedCredits() {
        return ungranted;
    }

    /**
     * Every counter, for logs and failing tests.
     *
     * @return a description of the window's state
     */
    @Override
    public String toString() {
        return "CreditWindow{depth=" + receiveQueueDepth + " available=" + available + " peerCredits=" + peerCredits
                + " posted=" + posted + " held=" + held + (heldBuffers != held ? " in " + heldBuffers : "")
                + " demand=" + demand + " ungranted=" + ungranted + " fresh="
                + fresh + " controlToRepost=" + controlToRepost + " pregrantedUnposted=" + pregrantedUnposted
                + " releasesExpected=" + releasesExpected + "}";
    }
}
