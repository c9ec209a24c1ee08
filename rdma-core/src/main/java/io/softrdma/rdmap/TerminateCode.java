package io.softrdma.rdmap;

import io.softrdma.ddp.DdpError;
import io.softrdma.mpa.LlpErrorCode;

/**
 * The three numbers a Terminate reports (RFC 5040 §4.8): Layer, Error Type and Error Code.
 *
 * <p>Thread safety: immutable.
 *
 * @param layer the Layer nibble (0 RDMAP, 1 DDP, 2 LLP; other values are kept as received)
 * @param errorType the EType nibble
 * @param errorCode the Error Code octet
 */
public record TerminateCode(int layer, int errorType, int errorCode) {

    public TerminateCode {
        if (layer < 0 || layer > 15 || errorType < 0 || errorType > 15 || errorCode < 0 || errorCode > 255) {
            throw new IllegalArgumentException("Layer " + layer + " and EType " + errorType
                    + " must fit 4 bits and Error Code " + errorCode + " 8 bits");
        }
    }

    public static TerminateCode of(RdmapError e) {
        return new TerminateCode(TerminateLayer.RDMAP.code(), e.errorType(), e.code());
    }

    public static TerminateCode of(DdpError e) {
        return new TerminateCode(TerminateLayer.DDP.code(), e.errorType(), e.code());
    }

    /** An MPA error: Layer 2, EType 0 (MPA), the RFC 5044 §8 / RFC 6581 code. */
    public static TerminateCode of(LlpErrorCode e) {
        return new TerminateCode(TerminateLayer.LLP.code(), 0, e.code());
    }

    /** The layer, or null when the nibble is not one RFC 5040 defines. */
    public TerminateLayer terminateLayer() {
        return TerminateLayer.fromCode(layer);
    }

    /** The error's name in the RFC's words, or "unknown". */
    public String name() {
        TerminateLayer l = terminateLayer();
        if (l == null) {
            return "unknown layer";
        }
        Enum<?> named = switch (l) {
            case RDMAP -> RdmapError.of(errorType, errorCode);
            case DDP -> DdpError.of(errorType, errorCode);
            case LLP -> errorType == 0 && errorCode >= 1 && errorCode <= 7 ? LlpErrorCode.fromCode(errorCode) : null;
        };
        return named == null ? "unknown " + l + " error" : named.name();
    }

    @Override
    public String toString() {
        return String.format("%s (Layer %d, EType %d, Code 0x%02x)", name(), layer, errorType, errorCode);
    }
}
