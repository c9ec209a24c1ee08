package io.softrdma.internal.transport;

/**
 * The name of every handler slot SoftRDMA puts in a channel pipeline, from the socket upward.
 *
 * <p>Thread safety: constants.
 */
public final class PipelineNames {
    /** Optional TLS ({@code SslHandler}) below MPA. */
    public static final String TLS = "rdma-tls";
    /** MPA startup (Request/Reply); removes itself once the full operation phase begins. */
    public static final String MPA_STARTUP = "mpa-startup";
    /** FPDU framing of outgoing ULPDUs. */
    public static final String FPDU_ENCODER = "fpdu-encoder";
    /** FPDU deframing of the received stream. */
    public static final String FPDU_DECODER = "fpdu-decoder";
    /** The queue pair (DDP and RDMAP) above MPA. */
    public static final String QUEUE_PAIR = "queue-pair";

    private PipelineNames() {
    }
}
