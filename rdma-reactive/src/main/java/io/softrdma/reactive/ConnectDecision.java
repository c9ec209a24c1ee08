package io.softrdma.reactive;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A server's answer to an MPA Request, emitted by the Mono of {@link RdmaServer#accept}: accept, with the
 * application's private data for the MPA Reply, or reject, with private data (a reason, say) that the Reply
 * carries with its Reject bit set and that the client's {@link io.softrdma.mpa.MpaRejectedException#privateData()}
 * returns (RFC 5044 §7.1.2).
 *
 * <p>Thread safety: immutable.
 */
public final class ConnectDecision {
    private static final ConnectDecision ACCEPT = new ConnectDecision(true, new byte[0]);

    private final boolean accepted;
    private final byte[] privateData;

    private ConnectDecision(boolean accepted, byte[] privateData) {
        this.accepted = accepted;
        this.privateData = privateData;
    }

    /** Accepts with no private data of the application's (SoftRDMA's RFC 8797 block still goes first). */
    public static ConnectDecision accept() {
        return ACCEPT;
    }

    /**
     * Accepts with {@code privateData} in the MPA Reply, after SoftRDMA's RFC 8797 block. Private data that does
     * not fit the Reply turns the accept into a reject that says so.
     */
    public static ConnectDecision accept(byte[] privateData) {
        return new ConnectDecision(true, Objects.requireNonNull(privateData, "privateData").clone());
    }

    /**
     * Rejects with {@code privateData} in the MPA Reply (cut to fit it: 512 octets less RFC 6581's 4-octet block,
     * or {@link io.softrdma.mpa.MpaSettings#maxPrivateDataLength()}), then closes the connection.
     */
    public static ConnectDecision reject(byte[] privateData) {
        return new ConnectDecision(false, Objects.requireNonNull(privateData, "privateData").clone());
    }

    /** Rejects with {@code reason}, UTF-8, as the MPA Reply's private data (cut to fit it), then closes. */
    public static ConnectDecision reject(String reason) {
        return new ConnectDecision(false, Objects.requireNonNull(reason, "reason").getBytes(StandardCharsets.UTF_8));
    }

    /** True to accept, false to reject. */
    public boolean accepted() {
        return accepted;
    }

    /** A copy of the private data for the MPA Reply. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The same array; not to be changed or handed out. */
    byte[] privateDataUnsafe() {
        return privateData;
    }

    @Override
    public String toString() {
        return (accepted ? "accept" : "reject") + " with " + privateData.length + " octets of private data";
    }
}
