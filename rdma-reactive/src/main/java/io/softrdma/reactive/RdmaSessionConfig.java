package io.softrdma.reactive;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.reactive.internal.MessagingProtocol;
import io.softrdma.reactive.spi.SessionProtocol;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What an {@link RdmaClient} and an {@link RdmaServer} configure alike for their sessions: the device they
 * allocate on, the MPA settings, how each queue pair is shaped, messaging and where metrics go. Read it back
 * with {@code client.configuration().session()} or {@code server.configuration().session()}.
 *
 * <p>Thread safety: immutable. Each builder setter makes a copy with one field changed.
 */
public final class RdmaSessionConfig {
    /**
     * The MPA settings of both {@link RdmaClient} and {@link RdmaServer} unless changed: revision 2 with CRC
     * ({@link MpaSettings#defaults()}) and RFC 6581 peer-to-peer mode {@link PeerToPeerMode#ANY}.
     *
     * <p>As initiator, a client offers both zero-length RTR messages, Write and Read, as Linux siw's
     * {@code peer_to_peer=1} does; a SoftRDMA or siw responder picks the Write. Without an RTR a server could
     * send nothing, no Write and no message, before the client's first FPDU (RFC 5044 §7.1.2), and a session
     * may well start with the server talking. As responder, a server accepts whatever RTR a peer offers,
     * preferring the Write (as siw and {@link PeerToPeerMode#OFF} do), and a peer that offers none.
     */
    public static final MpaSettings DEFAULT_MPA = MpaSettings.defaults().withPeerToPeer(PeerToPeerMode.ANY);

    private final RdmaDevice device;
    private final MpaSettings mpa;
    private final UnaryOperator<QueuePairConfig> queuePair;
    private final MessagingOptions messaging;
    private final RdmaMetricsRecorder metrics;
    /** The protocol on the sessions' queue pairs; null for SoftRDMA messaging with {@link #messaging}. */
    private final SessionProtocol protocol;
    /** Where messaging sessions draw receive buffers beyond their dedicated few; null: each registers all its own. */
    private final ReceivePool receivePool;

    RdmaSessionConfig(RdmaDevice device, MpaSettings mpa, UnaryOperator<QueuePairConfig> queuePair,
            MessagingOptions messaging, RdmaMetricsRecorder metrics) {
        this(device, mpa, queuePair, messaging, metrics, null, null);
    }

    private RdmaSessionConfig(RdmaDevice device, MpaSettings mpa, UnaryOperator<QueuePairConfig> queuePair,
            MessagingOptions messaging, RdmaMetricsRecorder metrics, SessionProtocol protocol,
            ReceivePool receivePool) {
        this.protocol = protocol;
        this.receivePool = receivePool;
        this.device = Objects.requireNonNull(device, "device");
        this.mpa = Objects.requireNonNull(mpa, "mpa");
        this.queuePair = Objects.requireNonNull(queuePair, "queuePair");
        this.messaging = Objects.requireNonNull(messaging, "messaging");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** The defaults of both builders, on a device of their own named {@code deviceName}. */
    static RdmaSessionConfig defaults(String deviceName) {
        return new RdmaSessionConfig(RdmaDevice.create(deviceName), DEFAULT_MPA, UnaryOperator.identity(),
                MessagingOptions.DEFAULTS, RdmaMetricsRecorder.NONE);
    }

    /** The device whose protection domains, completion queues and queue pairs the sessions use. */
    public RdmaDevice device() {
        return device;
    }

    /** The MPA settings of the startup. */
    public MpaSettings mpa() {
        return mpa;
    }

    /** Shapes each session's queue pair, starting from {@link QueuePairConfig#of}'s defaults. */
    public UnaryOperator<QueuePairConfig> queuePair() {
        return queuePair;
    }

    /** Messaging sizes and remote invalidation. */
    public MessagingOptions messaging() {
        return messaging;
    }

    /** Where the sessions report what they do. */
    public RdmaMetricsRecorder metrics() {
        return metrics;
    }

    RdmaSessionConfig withMpa(MpaSettings mpa) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    RdmaSessionConfig withQueuePair(UnaryOperator<QueuePairConfig> queuePair) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    RdmaSessionConfig withMessaging(MessagingOptions messaging) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    RdmaSessionConfig withMetrics(RdmaMetricsRecorder metrics) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    RdmaSessionConfig withReceivePool(ReceivePool receivePool) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    /**
     * The budget messaging sessions draw their receive buffers from beyond {@link ReceivePool#DEDICATED_BUFFERS}
     * each ({@link ReceivePool}), or null: each session registers {@code receiveQueueDepth} buffers of its own when
     * it starts (a client's default).
     */
    public ReceivePool receivePool() {
        return receivePool;
    }

    RdmaSessionConfig withProtocol(SessionProtocol protocol) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    RdmaSessionConfig withDevice(RdmaDevice device) {
        return new RdmaSessionConfig(device, mpa, queuePair, messaging, metrics, protocol, receivePool);
    }

    /**
     * The protocol the sessions run on their queue pairs: SoftRDMA messaging with {@link #messaging()} unless
     * another was set (RPC-over-RDMA, for instance).
     */
    public SessionProtocol protocol() {
        return protocol != null ? protocol : new MessagingProtocol(messaging, receivePool);
    }

    /**
     * Whether the sessions run SoftRDMA messaging (no other {@link SessionProtocol} was set), so that
     * {@code send}, {@code receive}, {@code request} and {@code respond} work on them.
     */
    public boolean runsMessaging() {
        return protocol == null;
    }

    @Override
    public String toString() {
        return "RdmaSessionConfig[device=" + device + ", mpa=" + mpa + ", protocol=" + protocol().name()
                + ", messaging=" + messaging + ", receivePool=" + receivePool + ", metrics=" + metrics + "]";
    }
}
