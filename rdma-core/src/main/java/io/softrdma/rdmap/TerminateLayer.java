package io.softrdma.rdmap;

/**
 * The Layer nibble of the Terminate control field, RFC 5040 §4.8 Figure 9.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum TerminateLayer {
    /** 0000b: RDMAP. */
    RDMAP(0),
    /** 0001b: DDP. */
    DDP(1),
    /** 0010b: the lower layer protocol (MPA). */
    LLP(2);

    private final int code;

    TerminateLayer(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The constant for a wire value, or null for one RFC 5040 does not define. */
    public static TerminateLayer fromCode(int code) {
        return switch (code) {
            case 0 -> RDMAP;
            case 1 -> DDP;
            case 2 -> LLP;
            default -> null;
        };
    }
}
