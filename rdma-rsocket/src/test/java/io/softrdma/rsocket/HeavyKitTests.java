package io.softrdma.rsocket;

/**
 * Why two of the kit's tests run only on request ({@code -Dsoftrdma.rsocket.kit.heavy=true}): their cost is the kit's
 * and this machine's, not the transport's. Measured on the project's 2-core machine, shared, with the kit's
 * {@code Hooks.onOperatorDebug()} and Netty's PARANOID leak tracking on, over this transport and over RSocket's own TCP
 * transport (rsocket-transport-netty, as its {@code TcpTransportTest} sets it up) in the same build.
 */
final class HeavyKitTests {
    static final String PROPERTY = "softrdma.rsocket.kit.heavy";

    static final String CHANNEL_200_000 = "the kit's cost, not the transport's: 200,000 payloads each way through"
            + " assembly-traced operators (Hooks.onOperatorDebug) and PARANOID leak records took 51 s over RDMA and"
            + " 88 s over RSocket's TCP transport on the 2-core build machine; run with -D" + PROPERTY + "=true";

    static final String CHANNEL_256 = "the kit's cost, not the transport's: 1,024 channels, 12 at once, each checked by"
            + " a reactor-test StepVerifier whose verify(Duration) polls its latch in a busy loop"
            + " (DefaultVerifySubscriber.pollTaskEventOrComplete): 12 spinning threads starve the event loops of 2 cores;"
            + " 385 s over RDMA and 316 s over RSocket's TCP transport on the build machine; run with -D"
            + PROPERTY + "=true";

    static final String RESUMED_10_000 = "run without resumption by RdmaTransportTest; with resumption the kit breaks"
            + " each connection 10 ms to 1.5 s after its first frame and RSocket's default resume retry waits about a"
            + " second each time, which took this test 3 to 9 s on the build machine, beyond the module's time budget"
            + " with the resumed 20,000-payload channel that stays on; run with -D" + PROPERTY + "=true";

    private HeavyKitTests() {
    }
}
