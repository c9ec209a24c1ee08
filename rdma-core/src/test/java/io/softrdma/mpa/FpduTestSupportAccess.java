package io.softrdma.mpa;

import io.softrdma.internal.mpa.FpduEncoder;
import java.util.List;

/** Lets tests of other packages frame ULPDUs the way {@link FpduEncoder} does (CRC on, no Markers). */
public final class FpduTestSupportAccess {
    private FpduTestSupportAccess() {
    }

    public static byte[] encode(byte[] ulpdu) {
        return FpduTestSupport.encode(true, false, List.of(ulpdu));
    }
}
