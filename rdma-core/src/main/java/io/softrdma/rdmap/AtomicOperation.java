package io.softrdma.rdmap;

/**
 * The atomic operations of an Atomic Request (RFC 7306 §5.2.1 Figure 5 and §10.1, the 4-bit AOpCode field):
 * FetchAdd (§5.1.1) and CmpSwap (§5.1.2) on one 64-bit word, each in its masked form. Every other code is
 * reserved.
 *
 * <p>The codes are RFC 7306 §10.1's registry: 0x0 FetchAdd, 0x1 Reserved, 0x2 CmpSwap, the rest unassigned (as
 * Wireshark's iWARP dissector decodes them, {@code rdma_atomic_opcode_names}).
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum AtomicOperation {
    /**
     * Fetch-and-Add: the word becomes {@code original + addData}, where a set bit of the Add Mask marks the end
     * of a field: the carry out of that bit is dropped, so the word holds independent counters. A mask of 0
     * is a plain 64-bit add.
     */
    FETCH_ADD(0x0),
    /**
     * Compare-and-Swap: if {@code original} equals {@code compareData} in the bits of the Compare Mask, the
     * bits of the Swap Mask take those of {@code swapData}. Masks of all ones are the plain form.
     */
    COMPARE_AND_SWAP(0x2);

    private final int code;

    AtomicOperation(int code) {
        this.code = code;
    }

    /** The 4-bit AtomicOp value on the wire. */
    public int code() {
        return code;
    }

    /** The operation for a wire value, or null for a reserved one. */
    public static AtomicOperation fromCode(int code) {
        return switch (code) {
            case 0x0 -> FETCH_ADD;
            case 0x2 -> COMPARE_AND_SWAP;
            default -> null;
        };
    }

    /**
     * What the word becomes. {@code addOrSwapMask} is the Add Mask (field ends) of a Fetch-and-Add and the
     * Swap Mask of a Compare-and-Swap.
     */
    public long apply(long original, long addOrSwapData, long addOrSwapMask, long compareData, long compareMask) {
        return switch (this) {
            case FETCH_ADD -> addOrSwapMask == 0 ? original + addOrSwapData
                    : maskedAdd(original, addOrSwapData, addOrSwapMask);
            case COMPARE_AND_SWAP -> ((original ^ compareData) & compareMask) != 0 ? original
                    : (original & ~addOrSwapMask) | (addOrSwapData & addOrSwapMask);
        };
    }

    /**
     * Adds field by field: each set bit of {@code boundaries} is the most significant bit of a field, and the
     * carry out of it is not propagated into the next field.
     */
    static long maskedAdd(long a, long b, long boundaries) {
        long result = 0;
        int low = 0;
        for (int bit = 0; bit < 64; bit++) {
            if ((boundaries >>> bit & 1) != 0 || bit == 63) {
                long fieldMask = bit - low == 63 ? -1L : ((1L << (bit - low + 1)) - 1) << low;
                result |= ((a & fieldMask) + (b & fieldMask)) & fieldMask;
                low = bit + 1;
            }
        }
        return result;
    }
}
