package io.softrdma.rdmap;

import io.softrdma.RdmaException;
import java.util.Objects;

/**
 * A stream ended with an RDMAP Terminate (RFC 5040 §5.4, §6.2.1): sent by this endpoint because the
 * peer violated the protocol, or received from the peer. Carries the Layer, Error Type and Error Code.
 *
 * <p>Stackless: it describes a protocol event, not a place in this process's code.
 */
public final class TerminateException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final TerminateCode code;
    private final boolean remote;
    private final transient ReceivedTerminate received;

    private TerminateException(TerminateCode code, boolean remote, ReceivedTerminate received, String message) {
        super(message, null, false, false);
        this.code = Objects.requireNonNull(code, "code");
        this.remote = remote;
        this.received = received;
    }

    /**
     * This endpoint terminated the stream with {@code code}.
     *
     * @param code the Terminate's Layer, Error Type and Error Code
     * @param cause what the peer did, and the headers the Terminate carried
     */
    public static TerminateException sent(TerminateCode code, String cause) {
        return new TerminateException(code, false, null, "Terminate sent: " + cause);
    }

    /** The peer terminated the stream. */
    public static TerminateException received(ReceivedTerminate terminate) {
        return new TerminateException(terminate.code(), true, terminate, "Terminate received: " + terminate);
    }

    public TerminateCode code() {
        return code;
    }

    /** True when the peer sent the Terminate, false when this endpoint did. */
    public boolean remote() {
        return remote;
    }

    /** The decoded Terminate the peer sent, or null when this endpoint sent it. */
    public ReceivedTerminate received() {
        return received;
    }
}
