package io.softrdma.mpa;

import io.softrdma.internal.mpa.MpaStartupFrameCodec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One MPA Request or Reply frame (RFC 5044 §7.1.1, Figure 8), decoded and validated.
 *
 * <p>Immutable: the private data is copied in and out.
 *
 * <p>Thread safety: instances are immutable and may be shared.
 */
public final class MpaStartupFrame {
    /** Which of the two startup frames this is; the key tells them apart. */
    public enum Type {
        /** "MPA ID Req Frame", sent by the initiator. */
        REQUEST,
        /** "MPA ID Rep Frame", sent by the responder. */
        REPLY
    }

    private final Type type;
    private final boolean markers;
    private final boolean crc;
    private final boolean rejected;
    private final int reserved;
    private final int revision;
    private final byte[] privateData;

    private MpaStartupFrame(Type type, boolean markers, boolean crc, boolean rejected, int reserved, int revision,
            byte[] privateData) {
        this.type = Objects.requireNonNull(type, "type");
        if ((reserved & ~MpaStartupFrameCodec.RES_MASK) != 0) {
            throw new IllegalArgumentException("reserved bits 0x" + Integer.toHexString(reserved)
                    + " do not fit the 5-bit Res field (mask 0x1f)");
        }
        if (revision < 0 || revision > 0xFF) {
            throw new IllegalArgumentException("revision " + revision + " does not fit the 8-bit Rev field");
        }
        if (privateData.length > MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH) {
            throw new IllegalArgumentException(privateData.length + " octets of private data exceed the maximum of "
                    + MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH + " (RFC 5044 §7.1.1)");
        }
        this.markers = markers;
        this.crc = crc;
        this.rejected = rejected;
        this.reserved = reserved;
        this.revision = revision;
        this.privateData = privateData;
    }

    /**
     * A frame with the given fields; the private data is copied.
     *
     * @param reserved the 5-bit Res field (RFC 5044 says 0; RFC 6581 as Linux does it uses 0x10)
     */
    public static MpaStartupFrame of(Type type, boolean markers, boolean crc, boolean rejected, int reserved,
            int revision, byte[] privateData) {
        return new MpaStartupFrame(type, markers, crc, rejected, reserved, revision,
                Objects.requireNonNull(privateData, "privateData").clone());
    }

    /** An MPA Request with Res = 0. */
    public static MpaStartupFrame request(boolean markers, boolean crc, int revision, byte[] privateData) {
        return of(Type.REQUEST, markers, crc, false, 0, revision, privateData);
    }

    /** An MPA Reply with Res = 0. */
    public static MpaStartupFrame reply(boolean markers, boolean crc, boolean rejected, int revision,
            byte[] privateData) {
        return of(Type.REPLY, markers, crc, rejected, 0, revision, privateData);
    }

    public Type type() {
        return type;
    }

    /** M: in a Request, the initiator requires Markers from the responder; in a Reply, the reverse. */
    public boolean markers() {
        return markers;
    }

    /** C: the sender's preference for CRCs; CRCs are used when either frame has C = 1. */
    public boolean crc() {
        return crc;
    }

    /** R: in a Reply, the responder rejected the connection. Not checked in a Request. */
    public boolean rejected() {
        return rejected;
    }

    /** The 5-bit Res field as received. */
    public int reserved() {
        return reserved;
    }

    /** Rev. */
    public int revision() {
        return revision;
    }

    /** PD_Length. */
    public int privateDataLength() {
        return privateData.length;
    }

    /** A copy of the private data. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * Whether this is an enhanced frame of RFC 6581: Rev 2 with the 0x10 flag, so that an IRD/ORD block
     * leads the private data. Linux treats Rev 2 without the flag as Rev 1, and so does SoftRDMA.
     */
    public boolean enhanced() {
        return revision == MpaSettings.REVISION_2 && (reserved & MpaStartupFrameCodec.FLAG_ENHANCED) != 0;
    }

    /**
     * The RFC 6581 IRD/ORD block of an enhanced frame.
     *
     * @throws IllegalStateException if the frame is not enhanced or its private data is shorter than 4 octets
     */
    public IrdOrdHeader irdOrd() {
        if (!enhanced() || privateData.length < IrdOrdHeader.LENGTH) {
            throw new IllegalStateException("no IRD/ORD block in " + this);
        }
        return IrdOrdHeader.decode(privateData);
    }

    /** A copy of the private data that belongs to the application: without the IRD/ORD block, if any. */
    public byte[] applicationPrivateData() {
        if (enhanced() && privateData.length >= IrdOrdHeader.LENGTH) {
            return Arrays.copyOfRange(privateData, IrdOrdHeader.LENGTH, privateData.length);
        }
        return privateData.clone();
    }

    /** The number of octets this frame takes on the wire. */
    public int encodedLength() {
        return MpaStartupFrameCodec.HEADER_LENGTH + privateData.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaStartupFrame f && f.type == type && f.markers == markers && f.crc == crc
                && f.rejected == rejected && f.reserved == reserved && f.revision == revision
                && Arrays.equals(f.privateData, privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, markers, crc, rejected, reserved, revision) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "MPA " + type + " {M=" + (markers ? 1 : 0) + " C=" + (crc ? 1 : 0) + " R=" + (rejected ? 1 : 0)
                + " Res=0x" + Integer.toHexString(reserved) + " Rev=" + revision + " PD_Length=" + privateData.length
                + (privateData.length == 0 ? "" : " PD=" + HexFormat.of().formatHex(privateData, 0,
                        Math.min(privateData.length, 32)) + (privateData.length > 32 ? "..." : ""))
                + "}";
    }
}
