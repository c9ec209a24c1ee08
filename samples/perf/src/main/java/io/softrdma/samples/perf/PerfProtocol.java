package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Locale;

/**
 * What client and server tell each other in the MPA startup's private data (RFC 5044 §7.1.4), so that
 * a separate server process can prepare each test: the client's Request names the test, phase and
 * message size; the server's Reply advertises the region to write or read and the receive credits.
 */
final class PerfProtocol {
    /** "SRPF": tells a perf server's private data apart from anyone else's. */
    static final int MAGIC = 0x53525046;

    /** The octets of an atomic test's operand: RFC 7306's one 64-bit word (its row's size). */
    static final int ATOMIC_SIZE = Long.BYTES;

    /**
     * The operations a run measures: RDMA Write, Read and Send at each size, and RFC 7306's Fetch-and-Add and
     * Compare-and-Swap on one 64-bit word ({@code --test atomic}: both).
     */
    enum Test {
        WRITE, READ, SEND, FETCH_ADD, COMPARE_SWAP;

        /** As in {@code --test} and the rows: write, read, send, fetch-add, compare-swap. */
        String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** An RFC 7306 atomic operation: fixed size, answered on the Read Request queue's terms (ORD/IRD). */
        boolean atomic() {
            return this == FETCH_ADD || this == COMPARE_SWAP;
        }
    }

    /** Bandwidth (pipelined) or latency (one operation at a time). */
    enum Phase {
        BANDWIDTH, LATENCY
    }

    /**
     * What the client asks for: 16 octets. {@code receives}: for Send bandwidth, how many receives the server should
     * post (it may grant fewer, see the Reply); 0 leaves it to the server. The field was a reserved zero before, so a
     * client that sends 0 gets what every client got then.
     */
    record Request(Test test, Phase phase, int size, int receives) {
        Request(Test test, Phase phase, int size) {
            this(test, phase, size, 0);
        }

        byte[] encode() {
            ByteBuf b = Unpooled.buffer(16);
            b.writeInt(MAGIC).writeByte(test.ordinal()).writeByte(phase.ordinal()).writeShort(0).writeInt(size)
                    .writeInt(receives);
            return b.array();
        }

        static Request decode(byte[] pd) {
            if (pd.length < 16) {
                throw new IllegalArgumentException("perf private data of " + pd.length + " octets; expected 16");
            }
            ByteBuf b = Unpooled.wrappedBuffer(pd);
            if (b.readInt() != MAGIC) {
                throw new IllegalArgumentException("not a perf client");
            }
            int test = b.readUnsignedByte();
            int phase = b.readUnsignedByte();
            if (test >= Test.values().length || phase >= Phase.values().length) {
                throw new IllegalArgumentException("unknown perf test " + test + " or phase " + phase
                        + " (a client of a newer perf?)");
            }
            b.skipBytes(2);
            int size = b.readInt();
            return new Request(Test.values()[test], Phase.values()[phase], size, Math.max(0, b.readInt()));
        }
    }

    /**
     * What the server answers: the region to write or read (for an atomic test, the 64-bit word), and how many
     * Sends it can take at once.
     */
    record Reply(int stag, long taggedOffset, int length, int receiveCredits) {
        byte[] encode() {
            ByteBuf b = Unpooled.buffer(24);
            b.writeInt(MAGIC).writeInt(stag).writeLong(taggedOffset).writeInt(length).writeInt(receiveCredits);
            return b.array();
        }

        static Reply decode(byte[] pd) {
            ByteBuf b = Unpooled.wrappedBuffer(pd);
            if (pd.length < 24 || b.readInt() != MAGIC) {
                throw new IllegalArgumentException("the server is not a perf server");
            }
            return new Reply(b.readInt(), b.readLong(), b.readInt(), b.readInt());
        }
    }

    private PerfProtocol() {
    }
}
