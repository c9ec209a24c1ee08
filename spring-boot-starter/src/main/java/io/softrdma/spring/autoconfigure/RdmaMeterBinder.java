package io.softrdma.spring.autoconfigure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.SessionStatistics;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * SoftRDMA's meters, from an {@link RdmaActivity}, tagged with low-cardinality values only ({@code role} server or
 * client; {@code peer}, the service or host a client role's connections go to, or {@code none}; and the opcode,
 * direction, operation, outcome, layer, error type and code):
 * <ul>
 *   <li>{@code rdma.messages} and {@code rdma.bytes}: RDMAP messages and their payload octets per {@code opcode}
 *       ({@code write}, {@code read.request}, {@code read.response}, {@code send}, {@code send.invalidate},
 *       {@code send.se}, {@code send.se.invalidate}, {@code terminate}) and {@code direction} (sent,
 *       received);</li>
 *   <li>{@code rdma.operation}: latency of Writes, Reads, requests and atomics, from subscription to completion, per
 *       {@code operation} and {@code outcome};</li>
 *   <li>{@code rdma.credits.available} (Send credits held from peers) and {@code rdma.credits.granted} (granted to
 *       peers: receive buffers posted and announced), {@code rdma.messages.buffered};</li>
 *   <li>{@code rdma.reads.outstanding} against {@code rdma.reads.ord}, and {@code rdma.reads.inbound.queued}
 *       against {@code rdma.reads.ird}: RDMA Reads in flight each way and what the connections allow (summed over
 *       the open connections);</li>
 *   <li>{@code rdma.connections} (open), {@code rdma.connections.closed} per {@code outcome} (graceful, lost),
 *       {@code rdma.terminates} per {@code layer} (rdmap, ddp, llp), {@code etype}, {@code code} and
 *       {@code direction} (sent, received), and {@code rdma.startup.failures} per {@code reason} (rejected,
 *       failed).</li>
 * </ul>
 *
 * <p>Thread safety: thread-safe; counts are read when the registry publishes.
 */
public class RdmaMeterBinder implements MeterBinder {
    private final RdmaActivity activity;

    /**
     * Meters for {@code activity}.
     *
     * @param activity what the sessions report
     */
    public RdmaMeterBinder(RdmaActivity activity) {
        this.activity = activity;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        // Peer roles come as the application names its peers; each gets its meters then.
        activity.forEachRole(role -> bind(registry, role));
    }

    private static void bind(MeterRegistry registry, RdmaActivity.Role role) {
        // Every meter has the same tag keys (Prometheus asks it of all series of a name): role and peer.
        Tags tags = Tags.of("role", role.name(), "peer", role.peer());
        for (RdmapOpcode op : RdmapOpcode.values()) {
            for (boolean inbound : new boolean[] {false, true}) {
                Tags t = tags.and("opcode", opcodeTag(op), "direction", inbound ? "received" : "sent");
                counter(registry, "rdma.messages", "RDMAP messages (RFC 5040 §4.2)", "messages", t, role,
                        r -> r.messages(op, inbound));
                counter(registry, "rdma.bytes", "payload octets of RDMAP messages", BaseUnits.BYTES, t, role,
                        r -> r.octets(op, inbound));
            }
        }
        gauge(registry, "rdma.connections", "open RDMA sessions", "connections", tags, role,
                r -> r.openSessions().size());
        counter(registry, "rdma.connections.closed", "RDMA sessions ended", "connections",
                tags.and("outcome", "graceful"), role, RdmaActivity.Role::closedGracefully);
        counter(registry, "rdma.connections.closed", "RDMA sessions ended", "connections", tags.and("outcome", "lost"),
                role, RdmaActivity.Role::lost);
        counter(registry, "rdma.startup.failures", "connections that never became sessions", "connections",
                tags.and("reason", "rejected"), role, RdmaActivity.Role::startupsRejected);
        counter(registry, "rdma.startup.failures", "connections that never became sessions", "connections",
                tags.and("reason", "failed"), role, RdmaActivity.Role::startupsFailed);
        sum(registry, "rdma.credits.available", "Send credits held from peers", "credits", tags, role,
                SessionStatistics::creditsAvailable);
        sum(registry, "rdma.credits.granted", "Send credits granted to peers (receive buffers announced)", "credits",
                tags, role, SessionStatistics::creditsGranted);
        sum(registry, "rdma.messages.buffered", "messages received and not yet consumed", "messages", tags, role,
                SessionStatistics::messagesBuffered);
        sum(registry, "rdma.reads.outstanding", "outbound RDMA Reads in flight", "reads", tags, role,
                SessionStatistics::readsOutstanding);
        sum(registry, "rdma.reads.ord", "outbound RDMA Reads allowed at once (ORD), summed over connections",
                "reads", tags, role, SessionStatistics::ord);
        sum(registry, "rdma.reads.inbound.queued", "inbound RDMA Reads held (IRD queue depth in use)", "reads", tags,
                role, SessionStatistics::inboundReadsQueued);
        sum(registry, "rdma.reads.ird", "inbound RDMA Reads accepted at once (IRD), summed over connections", "reads",
                tags, role, SessionStatistics::ird);
        role.addListener(new Timers(registry, tags));
    }

    private static String opcodeTag(RdmapOpcode op) {
        return switch (op) {
            case RDMA_WRITE -> "write";
            case RDMA_READ_REQUEST -> "read.request";
            case RDMA_READ_RESPONSE -> "read.response";
            case SEND -> "send";
            case SEND_WITH_INVALIDATE -> "send.invalidate";
            case SEND_WITH_SE -> "send.se";
            case SEND_WITH_SE_AND_INVALIDATE -> "send.se.invalidate";
            case TERMINATE -> "terminate";
            case IMMEDIATE_DATA -> "immediate";
            case IMMEDIATE_DATA_WITH_SE -> "immediate.se";
            case ATOMIC_REQUEST -> "atomic.request";
            case ATOMIC_RESPONSE -> "atomic.response";
        };
    }

    /**
     * A counter that never goes back, though sessions move their counts from "open" to "ended" under it. Its
     * object is the role, which the activity bean keeps alive (a meter holds its object weakly).
     */
    private static void counter(MeterRegistry registry, String name, String description, String unit, Tags tags,
            RdmaActivity.Role role, ToLongFunction<RdmaActivity.Role> count) {
        AtomicLong highest = new AtomicLong();
        FunctionCounter.builder(name, role, r -> highest.accumulateAndGet(count.applyAsLong(r), Math::max))
                .description(description).baseUnit(unit).tags(tags).register(registry);
    }

    private static void gauge(MeterRegistry registry, String name, String description, String unit, Tags tags,
            RdmaActivity.Role role, ToLongFunction<RdmaActivity.Role> value) {
        Gauge.builder(name, role, r -> value.applyAsLong(r)).description(description).baseUnit(unit).tags(tags)
                .register(registry);
    }

    private static void sum(MeterRegistry registry, String name, String description, String unit, Tags tags,
            RdmaActivity.Role role, ToLongFunction<SessionStatistics> value) {
        gauge(registry, name, description, unit, tags, role, r -> r.sum(value));
    }

    /** Latency timers and tagged Terminate counters, fed as events happen. */
    private static final class Timers implements RdmaMetricsRecorder {
        private final MeterRegistry registry;
        private final Tags tags;
        private final Timer[][] operations = new Timer[Operation.values().length][2];

        Timers(MeterRegistry registry, Tags tags) {
            this.registry = registry;
            this.tags = tags;
            for (Operation op : Operation.values()) {
                for (int ok = 0; ok < 2; ok++) {
                    operations[op.ordinal()][ok] = Timer.builder("rdma.operation")
                            .description("RDMA Writes, Reads and requests, from subscription to completion")
                            .tags(tags.and("operation", op.name().toLowerCase(Locale.ROOT), "outcome",
                                    ok == 1 ? "success" : "error"))
                            .register(registry);
                }
            }
        }

        @Override
        public void operation(Operation operation, long octets, long nanos, boolean success) {
            operations[operation.ordinal()][success ? 1 : 0].record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void terminate(TerminateException terminate) {
            Counter.builder("rdma.terminates").description("Terminate messages (RFC 5040 §5.4), by Layer/EType/Code")
                    .baseUnit("messages")
                    .tags(tags.and("layer", terminate.code().terminateLayer().name().toLowerCase(Locale.ROOT),
                            "etype", Integer.toString(terminate.code().errorType()),
                            "code", Integer.toString(terminate.code().errorCode()),
                            "direction", terminate.remote() ? "received" : "sent"))
                    .register(registry).increment();
        }
    }
}
