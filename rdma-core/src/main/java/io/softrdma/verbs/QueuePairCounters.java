package io.softrdma.verbs;

import io.softrdma.rdmap.RdmapOpcode;

/**
 * What one queue pair has put on the wire and taken off it, per RDMAP opcode (RFC 5040 §4.2) and
 * direction: complete messages, and the DDP payload octets of their segments (headers, MPA framing and
 * TCP not counted). A zero-length message counts as a message of 0 octets.
 *
 * <p>Thread safety: written only on the queue pair's event loop, without synchronisation, so that
 * counting costs two additions per segment. Readers on other threads (metrics) see each count as of
 * some recent moment: counts only grow, and a 64-bit JVM reads a {@code long} field whole.
 */
public final class QueuePairCounters {
    private static final int DIRECTION = 16;

    private final long[] messages = new long[2 * DIRECTION];
    private final long[] octets = new long[2 * DIRECTION];

    QueuePairCounters() {
    }

    /** One DDP segment of {@code opcode} with {@code payload} octets; {@code last} ends its message. */
    void segment(boolean inbound, int opcode, boolean last, int payload) {
        int i = (inbound ? DIRECTION : 0) + (opcode & 0x0F);
        octets[i] += payload;
        if (last) {
            messages[i]++;
        }
    }

    /**
     * Complete messages of {@code opcode} sent ({@code inbound} false) or received.
     *
     * @param opcode the RDMAP opcode
     * @param inbound true for messages the peer sent
     * @return the count since the queue pair was created
     */
    public long messages(RdmapOpcode opcode, boolean inbound) {
        return messages[(inbound ? DIRECTION : 0) + opcode.code()];
    }

    /**
     * Payload octets of {@code opcode}'s segments sent ({@code inbound} false) or received.
     *
     * @param opcode the RDMAP opcode
     * @param inbound true for segments the peer sent
     * @return the count since the queue pair was created
     */
    public long octets(RdmapOpcode opcode, boolean inbound) {
        return octets[(inbound ? DIRECTION : 0) + opcode.code()];
    }
}
