package io.softrdma.reactive.internal.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The payload of a {@link MessageType#BATCH} Send: stream messages packed one after another, each behind its
 * length (docs/protocol.md, "Batches"), big-endian:
 *
 * <pre>
 *    +-------------------------------+--------------------+-------------------------------+------
 *    |        length (32) = n1       |   n1 octets        |        length (32) = n2       |  ...
 *    +-------------------------------+--------------------+-------------------------------+------
 * </pre>
 *
 * The entries fill the payload exactly, and their number is the header's correlation id. A sender packs the
 * {@code DATA} messages that are queued behind each other when a Send goes out, so that a stream of small
 * messages costs one Send — one receive buffer, one credit, one FPDU — per inline threshold rather than per
 * message; it waits for nothing to fill a batch (no Nagle delay).
 *
 * <p>A flyweight codec: static methods on absolute indexes; nothing moves reader or writer indexes, nothing
 * allocates. Thread safety: stateless.
 */
public final class MessageBatch {
    /** Octets of an entry's length field. */
    public static final int ENTRY_HEADER = 4;

    private MessageBatch() {
    }

    /**
     * Octets an entry of a {@code length}-octet message takes.
     *
     * @param length the message's length
     * @return {@code ENTRY_HEADER + length}
     */
    public static int entryLength(int length) {
        return ENTRY_HEADER + length;
    }

    /**
     * Writes one entry: the message's readable bytes behind their length. The message is not released and its
     * reader index does not move.
     *
     * @param buf the Send's buffer
     * @param index absolute index of the entry
     * @param message the message
     * @return the index just past the entry
     */
    public static int writeEntry(ByteBuf buf, int index, ByteBuf message) {
        int n = message.readableBytes();
        buf.setInt(index, n);
        buf.setBytes(index + ENTRY_HEADER, message, message.readerIndex(), n);
        return index + ENTRY_HEADER + n;
    }

    /**
     * The length of the message of the entry at {@code index} (of a payload {@link #error validated} before).
     *
     * @param buf the received Send
     * @param index absolute index of the entry
     * @return the message's length; its octets start at {@code index + ENTRY_HEADER}
     */
    public static int messageLength(ByteBuf buf, int index) {
        return buf.getInt(index);
    }

    /**
     * What is wrong with a received batch payload, or {@code null} if nothing: its entries must fill the payload
     * exactly, and there must be {@code count} of them.
     *
     * @param buf the received Send
     * @param index absolute index of the payload (after the header)
     * @param length octets of payload
     * @param count the header's correlation id: the number of messages announced
     * @return a description of the violation, or {@code null}
     */
    public static String error(ByteBuf buf, int index, int length, int count) {
        int at = 0;
        int entries = 0;
        while (at < length) {
            if (length - at < ENTRY_HEADER) {
                return "a BATCH entry at payload offset " + at + " has " + (length - at)
                        + " octets, too few for its " + ENTRY_HEADER + "-octet length";
            }
            long n = buf.getUnsignedInt(index + at);
            if (n > length - at - ENTRY_HEADER) {
                return "a BATCH entry at payload offset " + at + " says " + n + " octets, but only "
                        + (length - at - ENTRY_HEADER) + " follow";
            }
            at += ENTRY_HEADER + (int) n;
            entries++;
        }
        if (entries != count) {
            return "a BATCH announces " + Integer.toUnsignedString(count) + " messages, but its " + length
                    + "-octet payload holds " + entries;
        }
        return null;
    }
}
