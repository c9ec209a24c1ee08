package io.softrdma.cm;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.internal.transport.TlsBarrierAdapter;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairHandler;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Puts SoftRDMA into a TCP channel that something else creates — {@link ConnectionManager}'s own
 * bootstraps, or a reactor-netty {@code TcpClient}/{@code TcpServer} from its channel-init hook: the MPA
 * startup (RFC 5044 §7.1, RFC 6581), and for an initiator the queue pair above it.
 *
 * <p>Call before the channel is active (from a channel initializer) or at the latest before any octet
 * arrives. The handlers go last in the pipeline; handlers below them (TLS, for example) see the MPA
 * stream as plain bytes.
 *
 * <p>Thread safety: call on the channel's event loop, or before it is registered.
 */
public final class RdmaPipeline {
    /** Enough queued output for a few 64 KiB messages before a queue pair pauses for writability. */
    public static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024);
    /**
     * Reads into 64 KiB buffers, not into buffers sized to recent reads: an FPDU split across two
     * reads must be cumulated (chained, and read piece by piece), and with large buffers that
     * happens once per 64 KiB at most, not once per small read.
     */
    public static final FixedRecvByteBufAllocator READ_BUFFERS = new FixedRecvByteBufAllocator(64 * 1024);

    private RdmaPipeline() {
    }

    /**
     * The channel options SoftRDMA wants on each connection, the one list that {@link ConnectionManager} and
     * rdma-reactive's builders use: TCP_NODELAY (each FPDU goes out at once), Netty's pooled allocator (Netty
     * 4.2's default, adaptive one makes every slice of a read buffer an object of its own; the pooled one
     * recycles them), 64 KiB reads and a 512 KiB / 2 MiB write water mark.
     */
    public static void applyOptions(java.util.function.BiConsumer<ChannelOption<Object>, Object> option) {
        option.accept(cast(ChannelOption.TCP_NODELAY), true);
        option.accept(cast(ChannelOption.ALLOCATOR), io.netty.buffer.PooledByteBufAllocator.DEFAULT);
        option.accept(cast(ChannelOption.WRITE_BUFFER_WATER_MARK), WATER_MARK);
        option.accept(cast(ChannelOption.RCVBUF_ALLOCATOR), READ_BUFFERS);
    }

    @SuppressWarnings("unchecked")
    private static ChannelOption<Object> cast(ChannelOption<?> o) {
        return (ChannelOption<Object>) o;
    }

    /**
     * Makes {@code channel} an MPA initiator with {@code privateData} whose stream binds
     * {@code queuePair} (IDLE). With revision 2 the Request offers the queue pair's IRD and ORD.
     *
     * @return completes with the connection once in RDMA mode, or fails with the MPA startup's error
     * @throws IllegalStateException if the queue pair is not IDLE or already bound
     * @throws IllegalArgumentException if the private data does not fit
     */
    public static CompletableFuture<RdmaConnection> initiator(Channel channel, QueuePair queuePair, byte[] privateData,
            MpaSettings settings) {
        return initiator(channel, queuePair, privateData, settings, null);
    }

    /**
     * As {@link #initiator(Channel, QueuePair, byte[], MpaSettings)}, with the handlers placed before
     * the handler named {@code before} when the pipeline has one (reactor-netty's reactive bridge,
     * which would otherwise take the octets first), else last.
     */
    public static CompletableFuture<RdmaConnection> initiator(Channel channel, QueuePair queuePair, byte[] privateData,
            MpaSettings settings, String before) {
        Objects.requireNonNull(channel, "channel");
        QueuePairHandler qpHandler = QueuePairHandler.of(queuePair);
        // RFC 7306 has no negotiation of its own: the offer rides after the application's private data.
        MpaStartupHandler startup = MpaStartupHandler.initiator(settings, queuePair.config().ird(),
                queuePair.config().ord(), queuePair.config().extensions().appendTo(privateData));
        add(channel, before, PipelineNames.MPA_STARTUP, startup);
        add(channel, before, PipelineNames.QUEUE_PAIR, qpHandler);
        return startup.outcome().thenApply((MpaNegotiation n) -> new RdmaConnection(channel, queuePair, n));
    }

    /**
     * For a channel that runs MPA over TLS: puts the adapter that lets the queue pair learn when TCP took
     * its writes (RFC 5040 §5.5 rule 14) through the TLS handler right after the handler named
     * {@code tlsHandler} (a Netty {@code SslHandler}, which takes nothing but buffers). Call after the TLS
     * handler is in the pipeline and before the connection is in RDMA mode.
     *
     * @throws java.util.NoSuchElementException if the pipeline has no handler named {@code tlsHandler}
     */
    public static void addTlsBarrier(Channel channel, String tlsHandler) {
        Objects.requireNonNull(channel, "channel");
        channel.pipeline().addAfter(tlsHandler, TlsBarrierAdapter.NAME, TlsBarrierAdapter.INSTANCE);
    }

    private static void add(Channel channel, String before, String name, io.netty.channel.ChannelHandler handler) {
        if (before != null && channel.pipeline().get(before) != null) {
            channel.pipeline().addBefore(before, name, handler);
        } else {
            channel.pipeline().addLast(name, handler);
        }
    }

    /**
     * Makes {@code channel} an MPA responder: {@code handler} decides on the Request once it has
     * arrived, and binds a queue pair when it accepts.
     */
    public static void responder(Channel channel, MpaSettings settings, ConnectRequestHandler handler) {
        responder(channel, settings, handler, null);
    }

    /**
     * As {@link #responder(Channel, MpaSettings, ConnectRequestHandler)}, placed before the handler
     * named {@code before} when there is one; the queue pair an accept binds goes right after the MPA
     * startup handler.
     */
    public static void responder(Channel channel, MpaSettings settings, ConnectRequestHandler handler,
            String before) {
        responder(channel, settings, handler, before, null);
    }

    /**
     * As {@link #responder(Channel, MpaSettings, ConnectRequestHandler, String)}, counting the startup against
     * {@code limiter} (if not null): when the limiter is full the channel is closed at once and this returns false.
     */
    public static boolean responder(Channel channel, MpaSettings settings, ConnectRequestHandler handler,
            String before, StartupLimiter limiter) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(handler, "handler");
        MpaStartupHandler[] startup = new MpaStartupHandler[1];
        startup[0] = MpaStartupHandler.responder(settings, (request, decision) ->
                handler.onConnectRequest(new ConnectRequest(channel, request, decision, startup[0])));
        if (limiter != null && !limiter.admit(channel, startup[0].outcome())) {
            return false;
        }
        add(channel, before, PipelineNames.MPA_STARTUP, startup[0]);
        return true;
    }
}
