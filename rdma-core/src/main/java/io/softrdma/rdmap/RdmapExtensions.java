package io.softrdma.rdmap;

import java.util.Arrays;
import java.util.Objects;

/**
 * Which RFC 7306 extensions a queue pair offers, or both ends of a stream agreed to: Atomic Operations
 * (opcodes 0xA, 0xB) and Immediate Data (0x8, 0x9).
 *
 * <p>RFC 7306 gives no way to negotiate them, and an RNIC without them (Linux siw, iWARP NICs that reserve the
 * opcodes) Terminates on the first one. So they are agreed at connection setup, in the MPA private data: the
 * initiator appends an 8-octet block naming what it offers; a responder that knows the block answers with the
 * part it accepts in its Reply; and a stream uses exactly what both blocks name. A peer that does not know the
 * block ignores it (it is ULP private data, RFC 5044 §7.1) and sends none back, so nothing is enabled:
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |        Format Identifier 0x53 0x52 0x44 0x58 ("SRDX")         |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 |  Version = 1  |   Flags: 0x01 atomics, 0x02 immediate   |   0 (reserved)   |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The block goes after the application's own private data, so that a block that must come first (RFC 8797's,
 * which Linux's NFS server looks for at offset 0) stays first; it is found there, at the end, and only there.
 *
 * <p>Thread safety: immutable.
 *
 * @param atomics Atomic Request and Atomic Response (RFC 7306 §5)
 * @param immediateData Immediate Data and Immediate Data with SE (RFC 7306 §6)
 */
public record RdmapExtensions(boolean atomics, boolean immediateData) {
    /** No extension: plain RFC 5040, what Linux siw speaks. */
    public static final RdmapExtensions NONE = new RdmapExtensions(false, false);
    /** Atomics and Immediate Data. */
    public static final RdmapExtensions ALL = new RdmapExtensions(true, true);

    /** The block's length in the private data. */
    public static final int BLOCK_LENGTH = 8;
    static final int FORMAT_IDENTIFIER = 0x5352_4458;
    static final int VERSION_1 = 1;
    static final int FLAG_ATOMICS = 0x01;
    static final int FLAG_IMMEDIATE_DATA = 0x02;

    /** Whether any extension is named. */
    public boolean any() {
        return atomics || immediateData;
    }

    /** What both name. */
    public RdmapExtensions and(RdmapExtensions other) {
        Objects.requireNonNull(other, "other");
        return new RdmapExtensions(atomics && other.atomics, immediateData && other.immediateData);
    }

    /**
     * {@code privateData} followed by this block, or {@code privateData} itself when nothing is named (then no
     * block is sent: a peer sees exactly the application's private data).
     */
    public byte[] appendTo(byte[] privateData) {
        Objects.requireNonNull(privateData, "privateData");
        if (!any()) {
            return privateData;
        }
        byte[] out = Arrays.copyOf(privateData, privateData.length + BLOCK_LENGTH);
        int i = privateData.length;
        out[i] = (byte) (FORMAT_IDENTIFIER >>> 24);
        out[i + 1] = (byte) (FORMAT_IDENTIFIER >>> 16);
        out[i + 2] = (byte) (FORMAT_IDENTIFIER >>> 8);
        out[i + 3] = (byte) FORMAT_IDENTIFIER;
        out[i + 4] = VERSION_1;
        out[i + 5] = (byte) ((atomics ? FLAG_ATOMICS : 0) | (immediateData ? FLAG_IMMEDIATE_DATA : 0));
        return out;
    }

    /**
     * The extensions the block that ends {@code privateData} names, or {@link #NONE} when it does not end with
     * one. Only the last 8 octets are looked at, where {@link #appendTo} puts the block: application data that
     * happens to contain the identifier elsewhere enables nothing. Unknown flag bits are ignored, so a later
     * version may add some.
     */
    public static RdmapExtensions find(byte[] privateData) {
        if (privateData == null || privateData.length < BLOCK_LENGTH) {
            return NONE;
        }
        int i = privateData.length - BLOCK_LENGTH;
        int id = (privateData[i] & 0xFF) << 24 | (privateData[i + 1] & 0xFF) << 16
                | (privateData[i + 2] & 0xFF) << 8 | privateData[i + 3] & 0xFF;
        if (id != FORMAT_IDENTIFIER || privateData[i + 4] != VERSION_1) {
            return NONE;
        }
        int flags = privateData[i + 5];
        return new RdmapExtensions((flags & FLAG_ATOMICS) != 0, (flags & FLAG_IMMEDIATE_DATA) != 0);
    }

    /** The private data of a responder's Reply: its own, plus a block with what it accepts of the Request's. */
    public static byte[] answer(RdmapExtensions supported, byte[] requestPrivateData, byte[] replyPrivateData) {
        return supported.and(find(requestPrivateData)).appendTo(replyPrivateData);
    }

    /** "none", "atomics", "immediate data" or "atomics, immediate data". */
    @Override
    public String toString() {
        return !any() ? "none" : atomics && immediateData ? "atomics, immediate data"
                : atomics ? "atomics" : "immediate data";
    }

    /** What a stream uses: what the block of each side's private data names. */
    public static RdmapExtensions agreed(byte[] localPrivateData, byte[] peerPrivateData) {
        return find(localPrivateData).and(find(peerPrivateData));
    }
}
