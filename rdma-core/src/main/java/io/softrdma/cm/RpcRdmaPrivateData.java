package io.softrdma.cm;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * RPC-over-RDMA version 1 CM private data (RFC 8797 §4): the 8-octet block that RPC-over-RDMA peers
 * exchange in the connection manager's private data to advertise their inline thresholds and their support
 * for remote invalidation.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Format Identifier                       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |    Version    |   Reserved  |R|   Send Size   | Receive Size  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>The Format Identifier is 0xf6ab0e18 in network byte order. R is the least significant
 * bit of the sixth octet ("bit 15" of the second word, RFC 8797 §5.1); the other seven bits of that octet are
 * reserved: written as zero, ignored on receipt (RFC 8797 §4). Each Size field carries
 * {@code (octets / 1024) - 1}, so sizes from 1024 to 262144 octets in steps of 1024 (RFC 8797 §4.2).
 *
 * <p>Sizes in this record are in octets (1024, 4096, ...), never the encoded values. The record is immutable
 * and validated: every instance can be encoded.
 *
 * @param version the message format version (RFC 8797 §4); 1 for every block this class decodes
 * @param remoteInvalidation the R bit: the sender supports remote invalidation (RFC 8797 §3.2, §4.1)
 * @param sendSize the largest RDMA Send, in octets, the sender is prepared to transmit (RFC 8797 §4)
 * @param receiveSize the largest RDMA Receive, in octets, the sender is prepared to accept (RFC 8797 §4)
 */
public record RpcRdmaPrivateData(int version, boolean remoteInvalidation, int sendSize, int receiveSize) {

    /** The Format Identifier of RPC-over-RDMA version 1 CM private data (RFC 8797 §4, §8). */
    public static final int FORMAT_IDENTIFIER = 0xf6ab0e18;

    /** {@link #FORMAT_IDENTIFIER} as text, for messages. */
    private static final String FORMAT_IDENTIFIER_HEX = "0xf6ab0e18";

    /** The only Version this class recognizes on receipt: exactly eight octets in the §4 layout (RFC 8797 §4). */
    public static final int VERSION_1 = 1;

    /** Octets of a version 1 block (RFC 8797 §4; the registry's Length, RFC 8797 §8). */
    public static final int LENGTH = 8;

    /** The smallest inline threshold, and the default one (RFC 8166 §3.3.3, RFC 8797 §4.2): encoded as 0. */
    public static final int MIN_SIZE = 1024;

    /** The largest inline threshold a Size field can carry (RFC 8797 §4.2): encoded as 255. */
    public static final int MAX_SIZE = 262144;

    /** The unit of the Size fields (RFC 8797 §4.2). */
    private static final int SIZE_UNIT = 1024;

    /** The R bit in the Reserved/R octet: its least significant bit (RFC 8797 §4, §5.1 "bit 15"). */
    private static final int R_BIT = 0x01;

    private static final RpcRdmaPrivateData DEFAULTS = new RpcRdmaPrivateData(VERSION_1, false, MIN_SIZE, MIN_SIZE);

    /**
     * Validates every field.
     *
     * @throws IllegalArgumentException if the version does not fit the 8-bit Version field or is 0, or a size is
     *         not a multiple of 1024 octets within {@value #MIN_SIZE}..{@value #MAX_SIZE} (RFC 8797 §4.2)
     */
    public RpcRdmaPrivateData {
        if (version < 1 || version > 0xFF) {
            throw new IllegalArgumentException("version " + version + " is not a valid RPC-over-RDMA CM private data"
                    + " version: the Version field is 8 bits and versions start at 1; use VERSION_1 (RFC 8797 §4)");
        }
        checkSize("sendSize", sendSize);
        checkSize("receiveSize", receiveSize);
    }

    private static void checkSize(String name, int octets) {
        if (octets < MIN_SIZE) {
            throw new IllegalArgumentException(name + " " + octets + " is below the minimum inline threshold of "
                    + MIN_SIZE + " octets; use at least " + MIN_SIZE + " (RFC 8797 §4.2, RFC 8166 §3.3.3)");
        }
        if (octets > MAX_SIZE) {
            throw new IllegalArgumentException(name + " " + octets + " is above the largest size a Size field can"
                    + " carry, " + MAX_SIZE + " octets; use at most " + MAX_SIZE + " (RFC 8797 §4.2)");
        }
        if (octets % SIZE_UNIT != 0) {
            throw new IllegalArgumentException(name + " " + octets + " is not a multiple of " + SIZE_UNIT
                    + " octets, so a Size field cannot carry it; round it down to " + (octets / SIZE_UNIT * SIZE_UNIT)
                    + " (RFC 8797 §4.2)");
        }
    }

    /**
     * A version 1 block.
     *
     * @param remoteInvalidation whether to set R: this side supports remote invalidation (RFC 8797 §4.1)
     * @param sendSize the largest Send this side will transmit, octets: a multiple of 1024 in 1024..262144
     * @param receiveSize the largest Send this side will accept, octets: a multiple of 1024 in 1024..262144
     * @return the block
     * @throws IllegalArgumentException if a size is not valid (RFC 8797 §4.2)
     */
    public static RpcRdmaPrivateData of(boolean remoteInvalidation, int sendSize, int receiveSize) {
        return new RpcRdmaPrivateData(VERSION_1, remoteInvalidation, sendSize, receiveSize);
    }

    /**
     * What a peer that sent no valid block is taken to have sent (RFC 8797 §5.1): version 1, R clear, both sizes
     * encoded as zero, that is {@value #MIN_SIZE} octets (the RFC 8166 §3.3.3 default inline threshold).
     *
     * @return the defaults
     */
    public static RpcRdmaPrivateData defaults() {
        return DEFAULTS;
    }

    /**
     * The 8 octets of this block (RFC 8797 §4), reserved bits zero.
     *
     * @return a new array of {@value #LENGTH} octets
     */
    public byte[] encode() {
        byte[] out = new byte[LENGTH];
        encode(out, 0);
        return out;
    }

    /**
     * Writes the 8 octets of this block (RFC 8797 §4) into {@code dst} at {@code offset}; senders set the
     * reserved bits to zero (RFC 8797 §4).
     *
     * @param dst the destination
     * @param offset where the Format Identifier goes
     * @throws IndexOutOfBoundsException if the 8 octets do not fit in {@code dst} at {@code offset}
     */
    public void encode(byte[] dst, int offset) {
        Objects.requireNonNull(dst, "dst");
        Objects.checkFromIndexSize(offset, LENGTH, dst.length);
        // RFC 8797 §4: Format Identifier, network byte order.
        dst[offset] = (byte) (FORMAT_IDENTIFIER >>> 24);
        dst[offset + 1] = (byte) (FORMAT_IDENTIFIER >>> 16);
        dst[offset + 2] = (byte) (FORMAT_IDENTIFIER >>> 8);
        dst[offset + 3] = (byte) FORMAT_IDENTIFIER;
        dst[offset + 4] = (byte) version;
        // RFC 8797 §4: Reserved (7 bits) written as zero; R is the least significant bit (§4.1, §5.1).
        dst[offset + 5] = (byte) (remoteInvalidation ? R_BIT : 0);
        // RFC 8797 §4.2: (octets / 1024) - 1.
        dst[offset + 6] = (byte) encodeSize(sendSize);
        dst[offset + 7] = (byte) encodeSize(receiveSize);
    }

    /**
     * Decodes exactly one block whose Format Identifier starts at {@code offset}; octets after the block are not
     * looked at. Reserved bits are ignored (RFC 8797 §4). To look for a block anywhere in received private data,
     * as a receiver should (RFC 8797 §5.2), use {@link #find}.
     *
     * @param src the octets
     * @param offset where the Format Identifier is expected
     * @return the block
     * @throws IllegalArgumentException if the octets at {@code offset} are not the Format Identifier, the Version
     *         is not 1, or fewer than {@value #LENGTH} octets remain (the message says which)
     * @throws IndexOutOfBoundsException if {@code offset} is negative or beyond the end of {@code src}
     */
    public static RpcRdmaPrivateData decode(byte[] src, int offset) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromToIndex(offset, src.length, src.length);
        int available = src.length - offset;
        if (available >= 4 && identifierAt(src, offset) != FORMAT_IDENTIFIER) {
            throw new IllegalArgumentException(String.format("not RPC-over-RDMA CM private data: the Format Identifier"
                    + " at offset %d is 0x%08x, expected %s (RFC 8797 §4)", offset, identifierAt(src, offset),
                    FORMAT_IDENTIFIER_HEX));
        }
        if (available >= 5 && Byte.toUnsignedInt(src[offset + 4]) != VERSION_1) {
            throw new IllegalArgumentException("RPC-over-RDMA CM private data version "
                    + Byte.toUnsignedInt(src[offset + 4]) + " at offset " + (offset + 4) + " is not recognized; only "
                    + VERSION_1 + " is (RFC 8797 §4, §5.2)");
        }
        if (available < LENGTH) {
            throw new IllegalArgumentException("RPC-over-RDMA CM private data truncated: " + available
                    + " octets from offset " + offset + ", a version 1 block needs " + LENGTH
                    + " (RFC 8797 §4, §5.2)");
        }
        return parse(src, offset);
    }

    /**
     * Searches received private data for a valid block, as RFC 8797 §5.2 asks: the Format Identifier may start at
     * any offset (no alignment), and a candidate counts only if its Version is 1 and its 8 octets end within the
     * data; otherwise the search goes on from the next offset. The first valid block wins.
     *
     * <p>With MPA revision 2 the private data on the wire starts with the 4-octet IRD/ORD block (RFC 6581 §5);
     * the search finds the block behind it too.
     *
     * @param privateData the received private data; {@code null} is taken as none
     * @return the first valid block, or empty if there is none: the peer is then to be treated as having sent
     *         {@link #defaults()} (RFC 8797 §5.1)
     */
    public static Optional<RpcRdmaPrivateData> find(byte[] privateData) {
        int at = indexOf(privateData);
        return at < 0 ? Optional.empty() : Optional.of(parse(privateData, at));
    }

    /**
     * The first valid block in received private data (RFC 8797 §5.2), or {@link #defaults()} if there is none
     * (RFC 8797 §5.1).
     *
     * @param privateData the received private data; {@code null} is taken as none
     * @return the block the peer is taken to have sent
     */
    public static RpcRdmaPrivateData findOrDefaults(byte[] privateData) {
        return find(privateData).orElse(DEFAULTS);
    }

    /**
     * {@code privateData} followed by this block: a convenience for a consumer that has private data of its own.
     * The argument is not modified.
     *
     * <p>RFC 8797 §4 describes the block as "the first eight octets" of the private data, and a peer that only
     * looks there (Linux's xprtrdma and svcrdma read it at offset 0) will not see a block appended after other
     * octets; an RFC 8797 §5.2 receiver searches and finds it. With no octets of its own, a consumer sends
     * {@link #encode()}. MPA caps private data at 512 octets (RFC 5044 §7.1.1).
     *
     * @param privateData the consumer's own private data, possibly empty
     * @return a new array: {@code privateData}, then the {@value #LENGTH} octets of this block
     * @throws IllegalArgumentException if a receiver searching the result (RFC 8797 §5.2) would find another valid
     *         block first, one inside {@code privateData} or spanning its end
     */
    public byte[] appendTo(byte[] privateData) {
        Objects.requireNonNull(privateData, "privateData");
        byte[] out = Arrays.copyOf(privateData, privateData.length + LENGTH);
        encode(out, privateData.length);
        int first = indexOf(out);
        if (first != privateData.length) {
            throw new IllegalArgumentException("the private data already holds a valid RPC-over-RDMA CM private data"
                    + " block at offset " + first + " (" + parse(out, first) + "), which a receiver would find before"
                    + " the appended one (RFC 8797 §5.2); remove it or send this block alone");
        }
        return out;
    }

    /**
     * For logs: for example {@code RPC-over-RDMA v1 {R=1 send=4096 receive=4096}}, sizes in octets.
     *
     * @return the version, R and both sizes
     */
    @Override
    public String toString() {
        return "RPC-over-RDMA v" + version + " {R=" + (remoteInvalidation ? 1 : 0) + " send=" + sendSize
                + " receive=" + receiveSize + "}";
    }

    /** RFC 8797 §4.2: a sender divides by 1024 and subtracts one. */
    private static int encodeSize(int octets) {
        return octets / SIZE_UNIT - 1;
    }

    /** RFC 8797 §4.2: a receiver adds one and multiplies by 1024; every octet value decodes to a valid size. */
    private static int decodeSize(byte encoded) {
        return (Byte.toUnsignedInt(encoded) + 1) * SIZE_UNIT;
    }

    private static int identifierAt(byte[] src, int i) {
        return (src[i] & 0xFF) << 24 | (src[i + 1] & 0xFF) << 16 | (src[i + 2] & 0xFF) << 8 | (src[i + 3] & 0xFF);
    }

    /**
     * RFC 8797 §5.2: the first offset where the Format Identifier starts a block whose Version is 1 and whose
     * 8 octets do not overrun the data, or -1.
     */
    private static int indexOf(byte[] privateData) {
        if (privateData == null) {
            return -1;
        }
        // A candidate starting after length - LENGTH would overrun the buffer (RFC 8797 §5.2), so stop there.
        for (int i = 0; i <= privateData.length - LENGTH; i++) {
            if (identifierAt(privateData, i) == FORMAT_IDENTIFIER
                    && Byte.toUnsignedInt(privateData[i + 4]) == VERSION_1) {
                return i;
            }
        }
        return -1;
    }

    /** A version 1 block at {@code i}, already checked; the reserved bits are ignored (RFC 8797 §4). */
    private static RpcRdmaPrivateData parse(byte[] src, int i) {
        return new RpcRdmaPrivateData(VERSION_1, (src[i + 5] & R_BIT) != 0, decodeSize(src[i + 6]),
                decodeSize(src[i + 7]));
    }
}
