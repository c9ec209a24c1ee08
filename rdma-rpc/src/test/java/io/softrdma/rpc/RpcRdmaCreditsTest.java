package io.softrdma.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The requester's credits, RFC 8166 §3.3, as Linux's client keeps them ({@code rpcrdma_update_cwnd}). */
class RpcRdmaCreditsTest {

    /** Acquires until refused; returns how many were granted. */
    private static int acquireAll(RpcRdmaCredits c) {
        int n = 0;
        while (c.tryAcquire()) {
            n++;
            if (n > 100_000) {
                throw new AssertionError("tryAcquire never refuses");
            }
        }
        return n;
    }

    @Test
    void rfc8166Section3_3BeforeTheFirstReplyTheGrantIsOne() {
        RpcRdmaCredits c = new RpcRdmaCredits(32);
        assertThat(c.granted()).isEqualTo(1);
        assertThat(c.outstanding()).isZero();
        assertThat(c.requested()).as("every call asks for what this side can use").isEqualTo(32);
        assertThat(c.tryAcquire()).isTrue();
        assertThat(c.outstanding()).isEqualTo(1);
        assertThat(c.tryAcquire()).as("a second call waits for the first reply").isFalse();
        assertThat(c.outstanding()).isEqualTo(1);
    }

    @Test
    void rfc8166Section3_3_1OutstandingCallsAreBoundedByTheGrant() {
        RpcRdmaCredits c = new RpcRdmaCredits(128);
        assertThat(c.tryAcquire()).isTrue();
        c.replied(64); // what Linux svcrdma grants (captures: rdma_credit 64)
        assertThat(c.granted()).isEqualTo(64);
        assertThat(c.outstanding()).isZero();
        assertThat(acquireAll(c)).isEqualTo(64);
        assertThat(c.outstanding()).isEqualTo(64);
        c.replied(64);
        assertThat(c.outstanding()).isEqualTo(63);
        assertThat(acquireAll(c)).isEqualTo(1);
    }

    @Test
    void rfc8166Section3_3_1AGrantOfZeroIsTakenAsOne() {
        RpcRdmaCredits c = new RpcRdmaCredits(32);
        c.tryAcquire();
        c.replied(16);
        c.replied(0);
        assertThat(c.granted()).isEqualTo(1);
        assertThat(c.outstanding()).isZero();
        assertThat(acquireAll(c)).as("the connection can still make progress").isEqualTo(1);
    }

    @ParameterizedTest(name = "grant {0}")
    @ValueSource(longs = {33, 64, 1000, 0x7fffffffL, 0xffffffffL})
    void rfc8166Section3_3_1AGrantAboveWhatThisSideCanUseIsClampedToIt(long grant) {
        RpcRdmaCredits c = new RpcRdmaCredits(32);
        c.replied(grant);
        assertThat(c.granted()).isEqualTo(32);
        assertThat(acquireAll(c)).isEqualTo(32);
    }

    @Test
    void rfc8166Section3_3_1EachGrantReplacesTheLastUpAndDown() {
        RpcRdmaCredits c = new RpcRdmaCredits(64);
        c.replied(10);
        assertThat(c.granted()).isEqualTo(10);
        c.replied(20);
        assertThat(c.granted()).as("raised").isEqualTo(20);
        c.replied(5);
        assertThat(c.granted()).as("lowered, not the maximum seen").isEqualTo(5);
        c.replied(5);
        assertThat(c.granted()).isEqualTo(5);
        c.replied(64);
        assertThat(c.granted()).isEqualTo(64);
    }

    @Test
    void rfc8166Section3_3_1ALoweredGrantHoldsNewCallsUntilEnoughReplies() {
        RpcRdmaCredits c = new RpcRdmaCredits(64);
        c.replied(10);
        assertThat(acquireAll(c)).isEqualTo(10);
        c.replied(4); // 9 outstanding, grant 4
        assertThat(c.outstanding()).isEqualTo(9);
        assertThat(c.tryAcquire()).isFalse();
        for (int i = 0; i < 5; i++) {
            c.replied(4);
        }
        assertThat(c.outstanding()).isEqualTo(4);
        assertThat(c.tryAcquire()).isFalse();
        c.replied(4);
        assertThat(c.outstanding()).isEqualTo(3);
        assertThat(c.tryAcquire()).isTrue();
        assertThat(c.tryAcquire()).isFalse();
    }

    @Test
    void aReplyOrReleaseNeverTakesOutstandingBelowZero() {
        RpcRdmaCredits c = new RpcRdmaCredits(8);
        c.replied(8);
        c.replied(8);
        assertThat(c.outstanding()).isZero();
        c.released();
        assertThat(c.outstanding()).isZero();
        c.tryAcquire();
        c.tryAcquire();
        c.released();
        assertThat(c.outstanding()).isEqualTo(1);
        assertThat(c.granted()).as("a release leaves the grant alone").isEqualTo(8);
    }

    @Test
    void aNegativeGrantIsTakenAsOne() {
        RpcRdmaCredits c = new RpcRdmaCredits(8);
        c.replied(8);
        c.replied(-1);
        assertThat(c.granted()).isEqualTo(1);
    }

    @Test
    void rfc8166Section3_3ANewConnectionStartsOverWithOneCredit() {
        RpcRdmaCredits c = new RpcRdmaCredits(32);
        c.replied(32);
        acquireAll(c);
        assertThat(c.outstanding()).isEqualTo(32);
        c.reset();
        assertThat(c.granted()).isEqualTo(1);
        assertThat(c.outstanding()).isZero();
        assertThat(c.requested()).isEqualTo(32);
        assertThat(acquireAll(c)).isEqualTo(1);
        assertThat(c.toString()).isEqualTo("credits{granted 1, outstanding 1, max 32}");
    }

    @ParameterizedTest(name = "max {0}")
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void creditsMustAllowAtLeastOneCall(int max) {
        assertThatThrownBy(() -> new RpcRdmaCredits(max)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("credits must allow at least one call, not " + max);
    }

    @Test
    void oneCreditIsEnough() {
        RpcRdmaCredits c = new RpcRdmaCredits(1);
        assertThat(c.requested()).isEqualTo(1);
        c.replied(64);
        assertThat(c.granted()).isEqualTo(1);
        assertThat(acquireAll(c)).isEqualTo(1);
    }
}
