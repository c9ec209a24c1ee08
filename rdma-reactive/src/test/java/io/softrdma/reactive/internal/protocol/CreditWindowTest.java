package io.softrdma.reactive.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class CreditWindowTest {

    /** A window as a session has it right after connecting: its first buffers posted. */
    private static CreditWindow connected(int depth) {
        CreditWindow w = new CreditWindow(depth);
        w.posted(w.buffersToPost());
        return w;
    }

    // ------------------------------------------------------------------------------------------ unit scenarios

    @Test
    void eachSideStartsWithTheInitialCreditsAndPostsItsReserve() {
        CreditWindow w = new CreditWindow(16);
        assertThat(w.available()).isEqualTo(CreditWindow.INITIAL_CREDITS).isEqualTo(2);
        assertThat(w.peerCredits()).isEqualTo(2);
        assertThat(w.buffersToPost()).isEqualTo(2);
        w.posted(2);
        assertThat(w.postedBuffers()).isEqualTo(2);
        assertThat(w.ungrantedCredits()).as("the initial credits are granted by the protocol, not a header").isZero();
        assertThat(w.takeGrant()).isZero();
        assertThat(w.buffersToPost()).isZero();
    }

    @Test
    void demandPostedBeforeConnectingRidesTheFirstHeader() {
        CreditWindow w = new CreditWindow(16);
        w.demand(5);
        assertThat(w.buffersToPost()).isEqualTo(7);
        w.posted(7);
        assertThat(w.ungrantedCredits()).isEqualTo(5);
        assertThat(w.takeGrant()).isEqualTo(5);
        assertThat(w.peerCredits()).isEqualTo(7);
    }

    @ParameterizedTest
    @EnumSource(value = MessageType.class, names = {"DATA", "REQUEST", "RESPONSE", "LARGE", "ERROR"})
    void aDataMessageLeavesOneCreditHeldBack(MessageType type) {
        CreditWindow w = connected(8);
        assertThat(w.tryAcquire(type)).isTrue();
        assertThat(w.available()).isEqualTo(1);
        assertThat(w.canAcquire(type)).isFalse();
        assertThat(w.tryAcquire(type)).as("the last credit is held back").isFalse();
        assertThat(w.available()).isEqualTo(1);
        w.grant(1);
        assertThat(w.tryAcquire(type)).isTrue();
        assertThat(w.available()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = MessageType.class, names = {"CREDIT", "READ_DONE"})
    void theLastCreditGoesOnlyToAControlMessageThatGrantsCredit(MessageType type) {
        CreditWindow w = connected(8);
        assertThat(w.tryAcquire(MessageType.DATA)).isTrue();
        assertThat(w.available()).isEqualTo(1);
        assertThat(w.canAcquire(type)).as("nothing to grant").isFalse();
        w.demand(1);
        w.posted(w.buffersToPost());
        assertThat(w.ungrantedCredits()).isEqualTo(1);
        assertThat(w.tryAcquire(type)).as("a header that grants credit may use the last one").isTrue();
        assertThat(w.takeGrant()).isEqualTo(1);
        assertThat(w.available()).isZero();
        assertThat(w.canAcquire(type)).isFalse();
        assertThat(w.canAcquire(MessageType.DATA)).isFalse();
    }

    @Test
    void aLongMaxValueRequestIsCappedAtTheReceiveQueueDepth() {
        CreditWindow w = connected(32);
        w.demand(Long.MAX_VALUE);
        assertThat(w.outstandingDemand()).isEqualTo(Long.MAX_VALUE);
        assertThat(w.buffersToPost()).isEqualTo(30);
        w.posted(30);
        assertThat(w.postedBuffers()).isEqualTo(32);
        assertThat(w.takeGrant()).isEqualTo(30);
        assertThat(w.peerCredits()).isEqualTo(32);
        w.demand(Long.MAX_VALUE);
        w.demand(1);
        assertThat(w.outstandingDemand()).as("saturates").isEqualTo(Long.MAX_VALUE);
        assertThat(w.buffersToPost()).isZero();

        w.received(MessageType.DATA);
        assertThat(w.buffersToPost()).as("the message still occupies its buffer").isZero();
        w.delivered();
        assertThat(w.outstandingDemand()).as("unbounded demand does not decrease").isEqualTo(Long.MAX_VALUE);
        assertThat(w.buffersToPost()).isEqualTo(1);
    }

    @Test
    void aBatchHoldsOneBufferButCountsEachMessageAgainstDemand() {
        CreditWindow w = connected(8);
        w.demand(3);
        w.posted(w.buffersToPost());
        assertThat(w.postedBuffers()).isEqualTo(5);
        w.received(MessageType.BATCH, 6);
        assertThat(w.heldMessages()).isEqualTo(6);
        assertThat(w.postedBuffers()).isEqualTo(4);
        assertThat(w.buffersToPost()).as("min(3 + 2, 8) - 1 held buffer - 4 posted").isZero();
        w.delivered(true);
        assertThat(w.buffersToPost()).as("the first message frees the buffer: min(2 + 2, 8) - 4").isZero();
        w.delivered(false);
        w.delivered(false);
        assertThat(w.outstandingDemand()).isZero();
        assertThat(w.heldMessages()).isEqualTo(3);
        assertThat(w.buffersToPost()).as("the rest meet later demand without new credit").isZero();
        assertThatThrownBy(() -> w.delivered(false)).as("no demand for the rest")
                .isInstanceOf(IllegalStateException.class);
        w.demand(10);
        assertThat(w.buffersToPost()).as("min(10 + 2, 8) - 4 posted").isEqualTo(4);
        for (int i = 0; i < 3; i++) {
            w.delivered(false);
        }
        assertThat(w.heldMessages()).isZero();
        assertThatThrownBy(() -> w.delivered(false)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void onlyABatchCarriesMoreThanOneMessage() {
        CreditWindow w = connected(4);
        assertThatThrownBy(() -> w.received(MessageType.DATA, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a DATA carries 1 message, not 2");
        assertThatThrownBy(() -> w.received(MessageType.BATCH, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(w.postedBuffers()).as("nothing recorded").isEqualTo(2);
    }

    @Test
    void largeFiniteDemandSaturatesInsteadOfOverflowing() {
        CreditWindow w = connected(4);
        w.demand(Long.MAX_VALUE - 1);
        w.demand(5);
        assertThat(w.outstandingDemand()).isEqualTo(Long.MAX_VALUE);
        assertThat(w.buffersToPost()).isEqualTo(2);
    }

    @Test
    void grantsCoalesceIntoTheNextHeader() {
        CreditWindow w = connected(64);
        for (int i = 0; i < 10; i++) {
            w.demand(1);
            w.posted(w.buffersToPost());
        }
        w.demand(3);
        w.posted(w.buffersToPost());
        assertThat(w.ungrantedCredits()).isEqualTo(13);
        assertThat(w.takeGrant()).isEqualTo(13);
        assertThat(w.takeGrant()).isZero();
        assertThat(w.peerCredits()).isEqualTo(15);
    }

    @Test
    void grantsReceivedAccumulate() {
        CreditWindow w = connected(4);
        w.grant(0);
        w.grant(MessageHeader.MAX_CREDITS);
        w.grant(MessageHeader.MAX_CREDITS);
        assertThat(w.available()).isEqualTo(2 + 2L * 0xFFFF);
    }

    @Test
    void aControlMessagesBufferIsRepostedAtOnceWithoutDemand() {
        CreditWindow w = connected(8);
        w.received(MessageType.CREDIT);
        assertThat(w.postedBuffers()).isEqualTo(1);
        assertThat(w.heldMessages()).isZero();
        assertThat(w.buffersToPost()).isEqualTo(1);
        w.posted(1);
        w.received(MessageType.READ_DONE);
        assertThat(w.buffersToPost()).isEqualTo(1);
        w.posted(1);
        assertThat(w.ungrantedCredits()).isEqualTo(2);
        assertThat(w.outstandingDemand()).isZero();
    }

    @Test
    void aDataMessageHoldsItsBufferUntilDelivered() {
        CreditWindow w = connected(8);
        w.demand(1);
        w.posted(w.buffersToPost());
        w.takeGrant();
        w.received(MessageType.DATA);
        assertThat(w.heldMessages()).isEqualTo(1);
        assertThat(w.buffersToPost()).isZero();
        w.delivered();
        assertThat(w.heldMessages()).isZero();
        assertThat(w.outstandingDemand()).isZero();
        assertThat(w.buffersToPost()).as("back to the reserve, which is posted").isZero();
        assertThat(w.postedBuffers()).isEqualTo(2);
    }

    @Test
    void aPeerRunsAtMostOneMessageAheadOfDemandAndTheReserveIsNotReplenishedForIt() {
        CreditWindow w = connected(8);
        w.received(MessageType.DATA);
        assertThat(w.heldMessages()).isEqualTo(1);
        assertThat(w.buffersToPost()).isZero();
        assertThat(w.postedBuffers()).as("one buffer left for the peer's held-back credit").isEqualTo(1);
        assertThat(w.peerCredits()).isEqualTo(1);
    }

    @Test
    void standaloneUpdatesGoOnlyWhenNeeded() {
        CreditWindow w = connected(16);
        assertThat(w.lowWaterMark()).isEqualTo(4);
        assertThat(w.standaloneUpdateNeeded(false)).as("nothing to grant").isFalse();

        w.demand(10);
        w.posted(w.buffersToPost());
        assertThat(w.ungrantedCredits()).isEqualTo(10);
        assertThat(w.standaloneUpdateNeeded(false)).as("the peer holds 2, under the low-water mark").isTrue();
        assertThat(w.standaloneUpdateNeeded(true)).as("another message carries it").isFalse();
        assertThat(w.tryAcquire(MessageType.CREDIT)).isTrue();
        assertThat(w.takeGrant()).isEqualTo(10);
        assertThat(w.standaloneUpdateNeeded(false)).isFalse();

        for (int i = 0; i < 7; i++) {
            w.received(MessageType.DATA);
            w.delivered();
        }
        assertThat(w.peerCredits()).isEqualTo(5);
        w.demand(7);
        w.posted(w.buffersToPost());
        assertThat(w.ungrantedCredits()).isEqualTo(7);
        assertThat(w.standaloneUpdateNeeded(false)).as("the peer still holds 5, above the low-water mark")
                .isFalse();
        w.received(MessageType.DATA);
        w.delivered();
        assertThat(w.peerCredits()).isEqualTo(4);
        assertThat(w.standaloneUpdateNeeded(false)).as("now at the low-water mark").isTrue();
    }

    @Test
    void aCreditReceivedDoesNotTriggerACreditBack() {
        CreditWindow w = connected(16);
        w.received(MessageType.CREDIT);
        w.posted(w.buffersToPost());
        assertThat(w.ungrantedCredits()).isEqualTo(1);
        assertThat(w.peerCredits()).isEqualTo(1);
        assertThat(w.standaloneUpdateNeeded(false))
                .as("replacing the peer's CREDIT buffer alone is no reason to send: two idle peers would trade"
                        + " CREDITs forever").isFalse();
    }

    @Test
    void aPeerAtZeroIsAlwaysRestored() {
        CreditWindow w = connected(16);
        w.received(MessageType.CREDIT);
        w.posted(w.buffersToPost());
        w.received(MessageType.CREDIT);
        w.posted(w.buffersToPost());
        assertThat(w.peerCredits()).isZero();
        assertThat(w.ungrantedCredits()).isEqualTo(2);
        assertThat(w.standaloneUpdateNeeded(false)).as("the peer could not even announce its demand").isTrue();
        assertThat(w.tryAcquire(MessageType.CREDIT)).isTrue();
        assertThat(w.takeGrant()).isEqualTo(2);
    }

    @Test
    void aPeerTooLowToSendWhatThisSideAwaitsIsUnblocked() {
        CreditWindow w = connected(16);
        w.demand(1);
        w.posted(w.buffersToPost());
        w.takeGrant();
        w.received(MessageType.CREDIT);
        w.posted(w.buffersToPost());
        w.received(MessageType.CREDIT);
        w.posted(w.buffersToPost());
        assertThat(w.peerCredits()).isEqualTo(1);
        assertThat(w.ungrantedCredits()).isEqualTo(2);
        assertThat(w.standaloneUpdateNeeded(false)).as("demand waits and the peer cannot send data").isTrue();

        CreditWindow idle = connected(16);
        idle.received(MessageType.CREDIT);
        idle.posted(idle.buffersToPost());
        assertThat(idle.peerCredits()).isEqualTo(1);
        assertThat(idle.standaloneUpdateNeeded(false)).as("nothing awaited from the peer").isFalse();
        idle.expectRelease();
        assertThat(idle.releasesExpected()).isEqualTo(1);
        assertThat(idle.standaloneUpdateNeeded(false)).as("a lent region awaits its release, which a peer holding"
                + " one credit may be unable to send").isTrue();
        idle.releaseReceived();
        assertThat(idle.releasesExpected()).isZero();
        assertThat(idle.standaloneUpdateNeeded(false)).isFalse();
    }

    @Test
    void misuseIsReportedNotAbsorbed() {
        assertThatThrownBy(() -> new CreditWindow(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receiveQueueDepth 2 is outside 3..65535");
        assertThatThrownBy(() -> new CreditWindow(65536)).isInstanceOf(IllegalArgumentException.class);
        CreditWindow w = connected(4);
        assertThatThrownBy(() -> w.grant(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.grant(65536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.demand(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.demand(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.posted(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0..0 may be posted");
        assertThatThrownBy(() -> w.posted(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(w::delivered).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(w::releaseReceived).isInstanceOf(IllegalStateException.class);
        w.received(MessageType.DATA);
        assertThatThrownBy(w::delivered).as("no demand").isInstanceOf(IllegalStateException.class);
        w.received(MessageType.DATA);
        assertThatThrownBy(() -> w.received(MessageType.DATA)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no buffer available");
    }

    @ParameterizedTest
    @CsvSource({"3, 1", "4, 1", "7, 1", "8, 2", "16, 4", "65535, 16383"})
    void theLowWaterMarkIsAQuarterOfTheDepth(int depth, int mark) {
        assertThat(new CreditWindow(depth).lowWaterMark()).isEqualTo(mark);
    }

    // ------------------------------------------------------------------------------------------ simulation

    /** A message on the simulated wire. */
    private record Msg(MessageType type, int credits, long seq) {
    }

    /**
     * One side of a simulated connection: a session that posts, sends and delivers by its {@link CreditWindow},
     * over a queue pair whose receive queue is counted independently of the window, so that a Send that finds no
     * buffer fails the test as the queue pair would Terminate.
     */
    private static final class Endpoint {
        final String name;
        final CreditWindow window;
        final int depth;
        Endpoint peer;
        final ArrayDeque<Msg> inbound = new ArrayDeque<>();
        final ArrayDeque<Msg> held = new ArrayDeque<>();
        int receiveQueue;
        long toSend;
        long sent;
        int largeEvery;
        long nextExpected;
        long delivered;
        int readDonesOwed;
        long dataSent;
        long creditsSent;
        long readDonesSent;
        long maxPosted;

        Endpoint(String name, int depth) {
            this.name = name;
            this.depth = depth;
            this.window = new CreditWindow(depth);
            post();
        }

        void post() {
            int n = window.buffersToPost();
            receiveQueue += n;
            window.posted(n);
            maxPosted = Math.max(maxPosted, receiveQueue);
            if (receiveQueue + held.size() > depth) {
                throw new AssertionError(name + ": " + receiveQueue + " posted + " + held.size() + " held exceed"
                        + " the depth " + depth);
            }
        }

        MessageType nextDataType() {
            return largeEvery > 0 && sent % largeEvery == largeEvery - 1 ? MessageType.LARGE : MessageType.DATA;
        }

        boolean sendable() {
            return (readDonesOwed > 0 && window.canAcquire(MessageType.READ_DONE))
                    || (sent < toSend && window.canAcquire(nextDataType()));
        }

        boolean sendOne() {
            if (readDonesOwed > 0 && window.tryAcquire(MessageType.READ_DONE)) {
                readDonesOwed--;
                readDonesSent++;
                emit(MessageType.READ_DONE, -1);
                return true;
            }
            if (sent < toSend) {
                MessageType type = nextDataType();
                if (window.tryAcquire(type)) {
                    emit(type, sent++);
                    dataSent++;
                    if (type == MessageType.LARGE) {
                        window.expectRelease();
                    }
                    return true;
                }
            }
            return false;
        }

        boolean creditNeeded() {
            return window.standaloneUpdateNeeded(sendable());
        }

        void sendCredit() {
            if (!window.tryAcquire(MessageType.CREDIT)) {
                throw new AssertionError(name + ": a standalone update was needed but no credit could be taken: "
                        + window);
            }
            creditsSent++;
            emit(MessageType.CREDIT, -1);
        }

        void emit(MessageType type, long seq) {
            peer.inbound.add(new Msg(type, window.takeGrant(), seq));
        }

        void arrive() {
            Msg m = inbound.poll();
            if (receiveQueue == 0) {
                throw new AssertionError(name + " got a " + m.type() + " with no receive buffer posted: the queue"
                        + " pair would Terminate (DDP 2/0x02, no buffer available). " + this + " peer " + peer);
            }
            receiveQueue--;
            window.grant(m.credits());
            window.received(m.type());
            if (m.type() == MessageType.READ_DONE) {
                window.releaseReceived();
            } else if (!m.type().isControl()) {
                if (m.seq() != nextExpected) {
                    throw new AssertionError(name + " expected message " + nextExpected + " but got " + m.seq());
                }
                nextExpected++;
                held.add(m);
            }
            post();
            deliver();
        }

        void deliver() {
            while (!held.isEmpty() && window.outstandingDemand() > 0) {
                Msg m = held.poll();
                window.delivered();
                delivered++;
                if (m.type() == MessageType.LARGE) {
                    readDonesOwed++; // the RDMA Read of the region is done
                }
            }
            post();
        }

        void request(long n) {
            window.demand(n);
            post();
            deliver();
        }

        @Override
        public String toString() {
            return name + "{rq=" + receiveQueue + " held=" + held.size() + " sent=" + sent + "/" + toSend
                    + " delivered=" + delivered + " readDonesOwed=" + readDonesOwed + " inbound=" + inbound.size()
                    + " " + window + "}";
        }
    }

    /** Consumer policies: when a side's downstream requests more. */
    private enum Consumer {
        /** request(1) only when the previous request has been met. */
        ONE_AT_A_TIME,
        /** request(Long.MAX_VALUE) once. */
        UNBOUNDED,
        /** request(1..5) at random moments, whatever is outstanding. */
        BURSTY
    }

    /**
     * Runs two endpoints until both have delivered everything the other sent, choosing at random among the
     * enabled actions (arrivals in either direction, sends, standalone credits, downstream requests), so that
     * messages cross on the wire. Fails on an overrun, a lost or reordered message, more buffers than the depth, a
     * state with work left and nothing enabled (deadlock), or a long run of credit-only traffic (livelock).
     */
    private static final class Simulation {
        final Endpoint a;
        final Endpoint b;
        final Random random;
        final Consumer consumerA;
        final Consumer consumerB;
        final double consumerRate;
        boolean unboundedA;
        boolean unboundedB;
        long steps;
        long quietSteps;
        long maxQuietSteps;

        Simulation(int depthA, int depthB, long seed, Consumer consumerA, Consumer consumerB, double consumerRate) {
            a = new Endpoint("A", depthA);
            b = new Endpoint("B", depthB);
            a.peer = b;
            b.peer = a;
            random = new Random(seed);
            this.consumerA = consumerA;
            this.consumerB = consumerB;
            this.consumerRate = consumerRate;
        }

        private boolean wantsMore(Endpoint e, Consumer c) {
            long expected = e.peer.toSend;
            if (e.delivered + e.held.size() >= expected && e.held.isEmpty()) {
                return false;
            }
            return switch (c) {
                case ONE_AT_A_TIME -> e.window.outstandingDemand() == 0;
                case UNBOUNDED -> !(e == a ? unboundedA : unboundedB);
                case BURSTY -> e.window.outstandingDemand() < 5;
            };
        }

        private void consume(Endpoint e, Consumer c) {
            switch (c) {
                case ONE_AT_A_TIME -> e.request(1);
                case UNBOUNDED -> {
                    e.request(Long.MAX_VALUE);
                    if (e == a) {
                        unboundedA = true;
                    } else {
                        unboundedB = true;
                    }
                }
                case BURSTY -> e.request(1 + random.nextInt(5));
            }
        }

        private boolean done() {
            return a.delivered == b.toSend && b.delivered == a.toSend && a.inbound.isEmpty() && b.inbound.isEmpty()
                    && a.readDonesOwed == 0 && b.readDonesOwed == 0;
        }

        void run() {
            int[] actions = new int[8];
            while (!done()) {
                int n = 0;
                for (int side = 0; side < 2; side++) {
                    Endpoint e = side == 0 ? a : b;
                    Consumer c = side == 0 ? consumerA : consumerB;
                    int base = side * 4;
                    if (!e.inbound.isEmpty()) {
                        actions[n++] = base;
                    }
                    if (e.sendable()) {
                        actions[n++] = base + 1;
                    } else if (e.creditNeeded()) {
                        actions[n++] = base + 2;
                    }
                    if (wantsMore(e, c)) {
                        actions[n++] = base + 3;
                    }
                }
                if (n == 0) {
                    throw new AssertionError("deadlock after " + steps + " steps: nothing can happen but work is"
                            + " left.\n  " + a + "\n  " + b);
                }
                int action = pick(actions, n);
                Endpoint e = action < 4 ? a : b;
                switch (action % 4) {
                    case 0 -> {
                        MessageType t = e.inbound.peek().type();
                        e.arrive();
                        quiet(t == MessageType.CREDIT);
                    }
                    case 1 -> {
                        e.sendOne();
                        quiet(false);
                    }
                    case 2 -> {
                        e.sendCredit();
                        quiet(true);
                    }
                    default -> {
                        consume(e, action < 4 ? consumerA : consumerB);
                        quiet(false);
                    }
                }
                steps++;
            }
        }

        /** Picks an action, downstream requests only with probability {@link #consumerRate} when others exist. */
        private int pick(int[] actions, int n) {
            int others = 0;
            for (int i = 0; i < n; i++) {
                if (actions[i] % 4 != 3) {
                    others++;
                }
            }
            boolean consumer = others == 0 || (others < n && random.nextDouble() < consumerRate);
            int k = random.nextInt(consumer ? n - others : others);
            for (int i = 0; i < n; i++) {
                if ((actions[i] % 4 == 3) == consumer && k-- == 0) {
                    return actions[i];
                }
            }
            throw new AssertionError();
        }

        private void quiet(boolean creditOnly) {
            quietSteps = creditOnly ? quietSteps + 1 : 0;
            maxQuietSteps = Math.max(maxQuietSteps, quietSteps);
            if (quietSteps > 16) {
                throw new AssertionError("livelock: " + quietSteps + " CREDIT sends and arrivals in a row with"
                        + " nothing else happening.\n  " + a + "\n  " + b);
            }
        }
    }

    @Test
    void aConsumerRequestingOneAtATimeAgainstAFastSenderOverAMillionMessages() {
        Simulation sim = new Simulation(16, 16, 42, Consumer.ONE_AT_A_TIME, Consumer.ONE_AT_A_TIME, 0.5);
        sim.a.toSend = 1_000_000;
        sim.run();

        assertThat(sim.b.delivered).isEqualTo(1_000_000);
        assertThat(sim.b.nextExpected).isEqualTo(1_000_000);
        assertThat(sim.a.dataSent).isEqualTo(1_000_000);
        assertThat(sim.b.maxPosted).isLessThanOrEqualTo(16);
        assertThat(sim.a.maxPosted).isLessThanOrEqualTo(16);
        // The consumer side has no data to send, so its grants ride CREDITs: at most one per request(1), fewer
        // when requests coalesce while the sender still holds more than the low-water mark.
        assertThat(sim.b.creditsSent).isPositive().isLessThanOrEqualTo(1_000_000L);
        assertThat(sim.a.creditsSent).as("the sender owes nothing but the replacement of CREDIT buffers, which"
                + " rides its data").isLessThan(1000);
        assertThat(sim.maxQuietSteps).isLessThanOrEqualTo(4);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void bothSidesSendingAtOnceWithOneCreditWindows(long seed) {
        int depth = CreditWindow.MIN_RECEIVE_QUEUE_DEPTH;
        Simulation sim = new Simulation(depth, depth, seed, Consumer.ONE_AT_A_TIME, Consumer.ONE_AT_A_TIME, 0.3);
        sim.a.toSend = 50_000;
        sim.b.toSend = 50_000;
        sim.a.largeEvery = 7;
        sim.b.largeEvery = 5;
        sim.run();

        assertThat(sim.a.delivered).isEqualTo(50_000);
        assertThat(sim.b.delivered).isEqualTo(50_000);
        assertThat(sim.a.maxPosted).isLessThanOrEqualTo(depth);
        assertThat(sim.b.maxPosted).isLessThanOrEqualTo(depth);
        assertThat(sim.a.readDonesSent).isEqualTo(50_000 / 5);
        assertThat(sim.b.readDonesSent).isEqualTo(50_000 / 7);
        assertThat(sim.a.window.releasesExpected()).isZero();
        assertThat(sim.b.window.releasesExpected()).isZero();
    }

    @ParameterizedTest
    @CsvSource({"3, 3, 11", "3, 64, 12", "64, 3, 13", "5, 9, 14", "256, 256, 15"})
    void burstyConsumersBothWaysWithLargeMessages(int depthA, int depthB, long seed) {
        Simulation sim = new Simulation(depthA, depthB, seed, Consumer.BURSTY, Consumer.BURSTY, 0.05);
        sim.a.toSend = 100_000;
        sim.b.toSend = 30_000;
        sim.a.largeEvery = 3;
        sim.b.largeEvery = 11;
        sim.run();

        assertThat(sim.a.delivered).isEqualTo(30_000);
        assertThat(sim.b.delivered).isEqualTo(100_000);
        assertThat(sim.a.maxPosted).isLessThanOrEqualTo(depthA);
        assertThat(sim.b.maxPosted).isLessThanOrEqualTo(depthB);
    }

    @Test
    void unboundedDemandIsCappedAndItsGrantsCoalesce() {
        Simulation sim = new Simulation(64, 64, 7, Consumer.UNBOUNDED, Consumer.UNBOUNDED, 0.5);
        sim.a.toSend = 500_000;
        sim.run();

        assertThat(sim.b.delivered).isEqualTo(500_000);
        assertThat(sim.b.maxPosted).isEqualTo(64);
        assertThat(sim.b.creditsSent).as("a CREDIT goes only when the sender is down to the low-water mark (16),"
                + " and then grants everything reposted since").isLessThan(500_000 / 20);
    }

    @Test
    void aConsumerThatRequestsNothingStallsTheSenderWithoutLossOrTerminate() {
        Endpoint a = new Endpoint("A", 16);
        Endpoint b = new Endpoint("B", 16);
        a.peer = b;
        b.peer = a;
        a.toSend = 1000;
        for (int round = 0; round < 100; round++) {
            while (a.sendOne()) {
                // as fast as credits allow
            }
            while (!b.inbound.isEmpty()) {
                b.arrive();
            }
            assertThat(b.creditNeeded()).isFalse();
            if (a.creditNeeded()) {
                a.sendCredit();
            }
            while (!b.inbound.isEmpty()) {
                b.arrive();
            }
        }
        assertThat(a.sent).as("one message ahead of demand, then stalled").isEqualTo(1);
        assertThat(a.window.available()).isEqualTo(1);
        assertThat(b.held).hasSize(1);
        assertThat(b.receiveQueue).as("a buffer is still posted for the sender's held-back credit").isEqualTo(1);

        b.request(1000);
        for (int round = 0; round < 10_000 && b.delivered < 1000; round++) {
            if (b.creditNeeded()) {
                b.sendCredit();
            }
            while (!a.inbound.isEmpty()) {
                a.arrive();
            }
            while (a.sendOne()) {
                // as fast as credits allow
            }
            while (!b.inbound.isEmpty()) {
                b.arrive();
            }
        }
        assertThat(b.delivered).isEqualTo(1000);
        assertThat(b.nextExpected).isEqualTo(1000);
    }

    // ------------------------------------------------------------------------------------------ model check

    /** A state of two sessions and the wire between them, for the exhaustive model check. */
    private static final class State {
        final CreditWindow[] w = new CreditWindow[2];
        final int[] pendingData = new int[2];
        final int[] pendingLarge = new int[2];
        final int[] readDonesOwed = new int[2];
        final String[] heldKinds = {"", ""};
        final int[] demandBudget = new int[2];
        final int[] dataBudget = new int[2];
        final boolean[] unboundedUsed = new boolean[2];
        /** wire.get(i): messages travelling to side i, as "TYPE:credits". */
        final List<ArrayDeque<String>> wire = List.of(new ArrayDeque<>(), new ArrayDeque<>());

        State copy() {
            State c = new State();
            for (int i = 0; i < 2; i++) {
                c.w[i] = new CreditWindow(w[i]);
                c.pendingData[i] = pendingData[i];
                c.pendingLarge[i] = pendingLarge[i];
                c.readDonesOwed[i] = readDonesOwed[i];
                c.heldKinds[i] = heldKinds[i];
                c.demandBudget[i] = demandBudget[i];
                c.dataBudget[i] = dataBudget[i];
                c.unboundedUsed[i] = unboundedUsed[i];
                c.wire.get(i).addAll(wire.get(i));
            }
            return c;
        }

        String key() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 2; i++) {
                sb.append(w[i]).append('|').append(pendingData[i]).append(',').append(pendingLarge[i]).append(',')
                        .append(readDonesOwed[i]).append(',').append(heldKinds[i]).append(',')
                        .append(demandBudget[i]).append(',').append(dataBudget[i]).append(',')
                        .append(unboundedUsed[i]).append(wire.get(i)).append('#');
            }
            return sb.toString();
        }

        void postAndDeliver(int i) {
            w[i].posted(w[i].buffersToPost());
            while (w[i].heldMessages() > 0 && w[i].outstandingDemand() > 0) {
                char kind = heldKinds[i].charAt(0);
                heldKinds[i] = heldKinds[i].substring(1);
                w[i].delivered(kind != 'b');
                if (kind == 'L') {
                    readDonesOwed[i]++;
                }
                w[i].posted(w[i].buffersToPost());
            }
        }

        boolean sendable(int i) {
            return (pendingData[i] > 0 && w[i].canAcquire(MessageType.DATA))
                    || (pendingLarge[i] > 0 && w[i].canAcquire(MessageType.LARGE))
                    || (readDonesOwed[i] > 0 && w[i].canAcquire(MessageType.READ_DONE));
        }

        void send(int i, MessageType type) {
            send(i, type, 1);
        }

        /** Sends {@code type}; a BATCH of {@code messages} DATA messages travels as "BATCH:credits:count". */
        void send(int i, MessageType type, int messages) {
            if (!w[i].tryAcquire(type)) {
                throw new AssertionError("cannot acquire " + type + " in " + key());
            }
            wire.get(1 - i).add(type.name() + ":" + w[i].takeGrant() + (type == MessageType.BATCH ? ":" + messages : ""));
            if (type == MessageType.LARGE) {
                w[i].expectRelease();
            }
        }
    }

    private record ModelResult(int states, int quiescent, int deadlocks, int cycles, int quietAtZero,
            int readDoneWaits, int unexplainedReadDoneWaits, String example) {
    }

    /** Every internal step of {@code s}: sends, standalone credits, arrivals. */
    private static List<State> internalSteps(State s) {
        List<State> out = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            if (s.pendingData[i] > 0 && s.w[i].canAcquire(MessageType.DATA)) {
                State c = s.copy();
                c.pendingData[i]--;
                c.send(i, MessageType.DATA);
                out.add(c);
            }
            for (int k = 2; k <= s.pendingData[i] && s.w[i].canAcquire(MessageType.BATCH); k++) {
                // Queued DATA messages packed into one Send, any number of them (docs/protocol.md, BATCH).
                State c = s.copy();
                c.pendingData[i] -= k;
                c.send(i, MessageType.BATCH, k);
                out.add(c);
            }
            if (s.pendingLarge[i] > 0 && s.w[i].canAcquire(MessageType.LARGE)) {
                State c = s.copy();
                c.pendingLarge[i]--;
                c.send(i, MessageType.LARGE);
                out.add(c);
            }
            if (s.readDonesOwed[i] > 0 && s.w[i].canAcquire(MessageType.READ_DONE)) {
                State c = s.copy();
                c.readDonesOwed[i]--;
                c.send(i, MessageType.READ_DONE);
                out.add(c);
            }
            if (s.w[i].standaloneUpdateNeeded(s.sendable(i))) {
                State c = s.copy();
                c.send(i, MessageType.CREDIT);
                out.add(c);
            }
            if (!s.wire.get(i).isEmpty()) {
                State c = s.copy();
                String[] m = c.wire.get(i).poll().split(":");
                MessageType type = MessageType.valueOf(m[0]);
                int messages = m.length > 2 ? Integer.parseInt(m[2]) : 1;
                c.w[i].grant(Integer.parseInt(m[1]));
                if (c.w[i].postedBuffers() == 0) {
                    throw new AssertionError("overrun: a " + type + " found no buffer in " + s.key());
                }
                c.w[i].received(type, messages);
                if (type == MessageType.READ_DONE) {
                    c.w[i].releaseReceived();
                } else if (!type.isControl()) {
                    // A BATCH: its first message ('D') frees its buffer, the later ones ('b') ride along.
                    c.heldKinds[i] += type == MessageType.LARGE ? "L" : "D" + "b".repeat(messages - 1);
                }
                c.postAndDeliver(i);
                out.add(c);
            }
        }
        return out;
    }

    /** Every external event of {@code s}: downstream requests and the application queueing a message. */
    private static List<State> externalSteps(State s, boolean unbounded) {
        List<State> out = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            if (s.demandBudget[i] > 0) {
                State c = s.copy();
                c.demandBudget[i]--;
                c.w[i].demand(1);
                c.postAndDeliver(i);
                out.add(c);
            }
            if (unbounded && !s.unboundedUsed[i]) {
                State c = s.copy();
                c.unboundedUsed[i] = true;
                c.w[i].demand(Long.MAX_VALUE);
                c.postAndDeliver(i);
                out.add(c);
            }
            if (s.dataBudget[i] > 0) {
                State c = s.copy();
                c.dataBudget[i]--;
                c.pendingData[i]++;
                out.add(c);
                State d = s.copy();
                d.dataBudget[i]--;
                d.pendingLarge[i]++;
                out.add(d);
            }
        }
        return out;
    }

    /**
     * Explores every interleaving of two sessions with up to {@code demandBudget} request(1) and
     * {@code dataBudget} messages (DATA or LARGE) each, in-flight messages crossing, and reports deadlocks
     * (a side has a message to send, the other has demand for it, and nothing can happen), cycles of internal
     * steps (livelock: credit traffic that never ends), quiet states with a side at zero credits, and READ_DONEs
     * that wait although neither side holds an unrequested message.
     */
    private static ModelResult modelCheck(int depth, int demandBudget, int dataBudget, boolean unbounded) {
        State init = new State();
        for (int i = 0; i < 2; i++) {
            init.w[i] = new CreditWindow(depth);
            init.demandBudget[i] = demandBudget;
            init.dataBudget[i] = dataBudget;
            init.postAndDeliver(i);
        }
        Map<String, Integer> ids = new HashMap<>();
        List<State> states = new ArrayList<>();
        List<int[]> internalEdges = new ArrayList<>();
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        ids.put(init.key(), 0);
        states.add(init);
        internalEdges.add(null);
        queue.add(0);
        int quiescent = 0;
        int deadlocks = 0;
        int quietAtZero = 0;
        int readDoneWaits = 0;
        int unexplained = 0;
        String example = null;
        while (!queue.isEmpty()) {
            int id = queue.poll();
            State s = states.get(id);
            List<State> internal = internalSteps(s);
            int[] edges = new int[internal.size()];
            for (int k = 0; k < internal.size(); k++) {
                edges[k] = intern(internal.get(k), ids, states, internalEdges, queue);
            }
            internalEdges.set(id, edges);
            for (State next : externalSteps(s, unbounded)) {
                intern(next, ids, states, internalEdges, queue);
            }
            if (!internal.isEmpty()) {
                continue;
            }
            quiescent++;
            for (int i = 0; i < 2; i++) {
                CreditWindow x = s.w[i];
                CreditWindow y = s.w[1 - i];
                if (s.pendingData[i] + s.pendingLarge[i] > 0 && y.outstandingDemand() > y.heldMessages()) {
                    deadlocks++;
                    example = example == null ? "deadlock " + s.key() : example;
                }
                if (x.available() == 0) {
                    quietAtZero++;
                    example = example == null ? "quiet at zero " + s.key() : example;
                }
                if (s.readDonesOwed[i] > 0) {
                    readDoneWaits++;
                    if (x.heldMessages() <= x.outstandingDemand() && y.heldMessages() <= y.outstandingDemand()) {
                        unexplained++;
                        example = example == null ? "READ_DONE waits " + s.key() : example;
                    }
                }
            }
        }
        int cycles = countCycles(internalEdges);
        return new ModelResult(states.size(), quiescent, deadlocks, cycles, quietAtZero, readDoneWaits, unexplained,
                example);
    }

    private static int intern(State s, Map<String, Integer> ids, List<State> states, List<int[]> edges,
            ArrayDeque<Integer> queue) {
        String key = s.key();
        Integer known = ids.get(key);
        if (known != null) {
            return known;
        }
        int id = states.size();
        ids.put(key, id);
        states.add(s);
        edges.add(null);
        queue.add(id);
        return id;
    }

    /** Back edges found by an iterative depth-first search of the internal-step graph; 0 means acyclic. */
    private static int countCycles(List<int[]> edges) {
        int n = edges.size();
        byte[] color = new byte[n];
        int cycles = 0;
        int[] stack = new int[n];
        int[] next = new int[n];
        for (int root = 0; root < n; root++) {
            if (color[root] != 0) {
                continue;
            }
            int top = 0;
            stack[0] = root;
            next[0] = 0;
            color[root] = 1;
            while (top >= 0) {
                int v = stack[top];
                int[] out = edges.get(v);
                if (next[top] < out.length) {
                    int u = out[next[top]++];
                    if (color[u] == 1) {
                        cycles++;
                    } else if (color[u] == 0) {
                        color[u] = 1;
                        stack[++top] = u;
                        next[top] = 0;
                    }
                } else {
                    color[v] = 2;
                    top--;
                }
            }
        }
        return cycles;
    }

    @ParameterizedTest(name = "depth {0}, {1} request(1) and {2} messages per side, unbounded request {3}")
    @CsvSource({"3, 2, 2, false", "3, 1, 3, false", "4, 2, 1, true", "8, 1, 1, true"})
    void everyInterleavingProgressesWithoutCreditStorms(int depth, int demand, int data, boolean unbounded) {
        ModelResult r = modelCheck(depth, demand, data, unbounded);
        assertThat(r.states()).as("explored states").isGreaterThan(1000);
        assertThat(r.quiescent()).isPositive();
        assertThat(r.deadlocks()).as("deadlocks: %s", r.example()).isZero();
        assertThat(r.cycles()).as("cycles of credit-only traffic: %s", r.example()).isZero();
        assertThat(r.quietAtZero()).as("quiet states with a side at zero credits: %s", r.example()).isZero();
        assertThat(r.unexplainedReadDoneWaits()).as("READ_DONE waits with no unrequested message held: %s",
                r.example()).isZero();
    }
}
