package io.softrdma.rsocket;

import io.softrdma.reactive.MessagingOptions;

/**
 * SoftRDMA's messaging sizes for RSocket: what {@link RdmaClientTransport#create(String, int)} and
 * {@link RdmaServerTransport#create(String, int)} use, and what to give an {@code RdmaClient} or {@code RdmaServer}
 * of your own ({@code .messaging(RSocketMessaging.DEFAULTS)}) to get the same.
 *
 * <p>Why not the library's defaults: an RSocket frame is its payload plus a header of 6 octets (9 with metadata),
 * so a 4 KiB payload, the commonest size of all, is one frame of 4,102 octets or more, and a 4 KiB Send carries
 * 4,088. With the library's 4 KiB inline size every such frame took the large-message path (registration, an RDMA
 * Read round trip and its completion message): at 4 KiB that ran at a fifth to a half of RSocket over TCP
 * (docs/benchmarks.md, issue 17). And not just large enough for one such frame: 16 KiB Sends carry frames up to
 * 16,376 octets inline, and three frames of 4 KiB payloads queued together go as one Send (a BATCH), which shares
 * the cost of a Send (its work request, FPDU, CRC and completion) among them. Against 8 KiB Sends that raised
 * RSocket's 4 KiB rates by a fifth to two fifths (fire-and-forget 0.52 to 0.66 of RSocket over TCP's,
 * request-stream 0.89 to 1.07, medians of 3, docs/benchmarks.md). The receive memory this costs (receive queue
 * depth times the inline size per session, or the server's shared receive pool) is four times the library's
 * default: 2 MiB for a session's 128 receive buffers.
 *
 * <p>And a send window of 8 MiB rather than 1 MiB: the window bounds the octets of frames requested from RSocket
 * and not yet sent, and with 1 MiB frames a 1 MiB window kept one frame, so one RDMA Read, in flight.
 *
 * <p>Thread safety: constants only.
 */
public final class RSocketMessaging {
    /** Inline size for RSocket: 16 KiB Sends, so frames of 4 KiB payloads go inline, three to a Send. */
    public static final int INLINE_SIZE = 16 * 1024;

    /** Octets of frames a connection's send keeps requested and not yet sent: several 1 MiB frames in flight. */
    public static final long SEND_WINDOW_BYTES = 8L * 1024 * 1024;

    /** The library's {@link MessagingOptions#DEFAULTS} with {@link #INLINE_SIZE} and {@link #SEND_WINDOW_BYTES}. */
    public static final MessagingOptions DEFAULTS = of(MessagingOptions.DEFAULTS);

    private RSocketMessaging() {
    }

    /**
     * {@code options} sized for RSocket: the inline size raised to {@link #INLINE_SIZE} and the send window's
     * octets to {@link #SEND_WINDOW_BYTES} where they are smaller; everything else kept.
     *
     * @param options messaging options, e.g. an application's configured ones
     * @return the options RSocket's frames run well on
     */
    public static MessagingOptions of(MessagingOptions options) {
        MessagingOptions sized = options.inlineSize() >= INLINE_SIZE ? options : options.withInlineSize(INLINE_SIZE);
        return sized.sendWindowBytes() >= SEND_WINDOW_BYTES ? sized
                : sized.withSendWindow(sized.sendWindow(), SEND_WINDOW_BYTES);
    }
}
