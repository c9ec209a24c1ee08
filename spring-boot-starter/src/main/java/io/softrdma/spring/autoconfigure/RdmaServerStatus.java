package io.softrdma.spring.autoconfigure;

/**
 * A server on SoftRDMA, besides the {@link io.softrdma.reactive.RdmaServer}, that the {@code rdma} health indicator
 * reports: under its {@link #name()}, whether it listens, on which port, and its open connections. The health is
 * DOWN while such a server does not listen. The RSocket server over RDMA is one
 * ({@code io.softrdma.spring.rsocket.RdmaRSocketServer}).
 *
 * <p>Thread safety: implementations answer from any thread.
 */
public interface RdmaServerStatus {
    /**
     * The name of its entry in the health details.
     *
     * @return a short name, such as {@code rsocket}
     */
    String name();

    /**
     * Whether it listens now.
     *
     * @return false before the start, after the stop, and while it drains
     */
    boolean isListening();

    /**
     * The port it listens on.
     *
     * @return the port, or -1 when it does not listen
     */
    int port();

    /**
     * Its connections open now.
     *
     * @return the count
     */
    int connections();
}
