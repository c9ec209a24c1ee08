package io.softrdma.reactive.internal;

import io.softrdma.reactive.spi.ReceiveSlots;
import io.netty.buffer.ByteBuf;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.LargeMessageDescriptor;
import io.softrdma.reactive.internal.protocol.MessageBatch;
import io.softrdma.reactive.internal.protocol.MessageHeader;
import io.softrdma.reactive.internal.protocol.MessageType;
import io.softrdma.verbs.WorkCompletion;

/**
 * The receiving half of messaging (docs/protocol.md): each Send that lands in a receive slot is checked
 * ({@link MessageHeader#validate}), its grant and consumption go to the {@link CreditWindow}, and it is routed by
 * type — DATA and BATCH to the stream, REQUEST to the responder, RESPONSE and ERROR to their request, LARGE to be
 * RDMA-Read, READ_DONE (or a Send with Invalidate, RFC 8797 §4.1) to release a lent region. A malformed message ends
 * the session and closes the queue pair.
 *
 * <p>Thread safety: the event loop only.
 */
final class Receiver implements ReceiveSlots.Owner {
    private final MessagingEngine engine;
    private final ReceiveSlots slots;
    private final CreditWindow window;
    private final long maxMessageSize;

    Receiver(MessagingEngine engine, ReceiveSlots slots, CreditWindow window, long maxMessageSize) {
        this.engine = engine;
        this.slots = slots;
        this.window = window;
        this.maxMessageSize = maxMessageSize;
    }

    @Override
    public void received(ReceiveSlots.Slot slot, WorkCompletion completion) {
        ByteBuf memory = slot.memory();
        int offset = slot.offset();
        MessageType type;
        try {
            type = MessageHeader.validate(memory, offset, slot.length());
        } catch (RuntimeException e) {
            slot.free();
            engine.fail(e);
            return;
        }
        window.grant(MessageHeader.credits(memory, offset));
        window.received(type, type == MessageType.BATCH ? MessageHeader.correlationId(memory, offset) : 1);
        if (!type.isControl()) {
            engine.dataArrived();
        }
        int correlationId = MessageHeader.correlationId(memory, offset);
        if (slot.invalidatedStag() != 0) {
            // RFC 8797 §4.1: the peer's Send with Invalidate released a region this side lent.
            engine.large().released(slot.invalidatedStag());
        }
        switch (type) {
            case CREDIT -> slot.free();
            case READ_DONE -> {
                if (slot.invalidatedStag() != correlationId) {
                    engine.large().released(correlationId);
                }
                // Further regions read, released by the same READ_DONE (docs/protocol.md, "Large messages").
                for (int at = offset + MessageHeader.LENGTH, end = offset + slot.length(); at < end;
                        at += Integer.BYTES) {
                    engine.large().released(memory.getInt(at));
                }
                slot.free();
            }
            case LARGE -> {
                MessageType inner = MessageHeader.innerType(memory, offset);
                LargeMessageDescriptor d;
                try {
                    d = LargeMessageDescriptor.read(memory, offset + MessageHeader.LENGTH, maxMessageSize);
                } catch (RuntimeException e) {
                    slot.free();
                    engine.fail(e);
                    return;
                }
                slot.free();
                // A stream message keeps its place while it is read; a request or response is handed on once read.
                engine.large().fetch(d, inner == MessageType.DATA ? engine.inbound().place()
                        : message -> route(inner, correlationId, message));
            }
            case DATA, REQUEST, RESPONSE, ERROR -> route(type, correlationId,
                    slot.view(MessageHeader.LENGTH, slot.length()));
            case BATCH -> batch(slot, correlationId);
            default -> {
                slot.free();
                engine.fail(new IllegalStateException("an unexpected " + type + " message arrived"));
                return;
            }
        }
        engine.postReceives();
        engine.transmitter().pump();
    }

    /** Hands a received message (from its slot, or RDMA-Read for LARGE) to whoever it is for. */
    private void route(MessageType type, int correlationId, ByteBuf message) {
        switch (type) {
            case DATA -> engine.inbound().arrived(message, true);
            case REQUEST -> engine.responder().arrived(message, correlationId);
            default -> engine.requests().answered(type, correlationId, message);
        }
    }

    /**
     * Hands on each message of a BATCH as a view of its own over the slot ({@link ReceiveSlots.Slot#part}): the slot
     * goes back once every one of them is released. The first message handed on frees the buffer for the credit
     * count (docs/protocol.md, BATCH): the demand that took it paid for the buffer, as for a single message; the
     * rest ride along in it.
     */
    private void batch(ReceiveSlots.Slot slot, int count) {
        ByteBuf memory = slot.memory();
        int base = slot.offset();
        slot.lendParts(count);
        int at = MessageHeader.LENGTH;
        for (int i = 0; i < count; i++) {
            int n = MessageBatch.messageLength(memory, base + at);
            int from = at + MessageBatch.ENTRY_HEADER;
            at += MessageBatch.entryLength(n);
            engine.inbound().arrived(slot.part(i, from, from + n), i == 0);
        }
    }

    @Override
    public void receivedImmediate(long data) {
        engine.immediateData().arrived(data);
        engine.postReceives();
        engine.transmitter().pump();
    }

    @Override
    public void returned() {
        if (!engine.ended()) {
            engine.postReceives();
            engine.transmitter().maybeUpdateCredits();
        }
    }
}
