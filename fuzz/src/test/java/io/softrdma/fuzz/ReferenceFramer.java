package io.softrdma.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * An independent, deliberately simple model of RFC 5044 framing, written from the RFC and not from
 * rdma-core: the oracle the FPDU fuzz targets compare {@code FpduDecoder} and {@code FpduEncoder} with.
 *
 * <ul>
 *   <li>§4.1: ULPDU_Length (16 bits), the ULPDU, PAD to a multiple of four, CRC (32 bits).</li>
 *   <li>§4.2, §4.3: a Marker (16 reserved bits, 16-bit FPDUPTR) at every 512th octet of the stream,
 *       counted from the first octet of the first FPDU; one between FPDUs holds 0 and belongs to the FPDU
 *       after it, one inside an FPDU points back to its ULPDU_Length field. FPDUPTR's two low bits are
 *       ignored on receipt.</li>
 *   <li>§4.4: CRC32c over the whole FPDU before the CRC field, its Markers included (a leading Marker
 *       too), sent least-significant octet first; zero when CRCs are off, and then not checked.</li>
 *   <li>§3: a ULPDU_Length above 64768 is an error; SoftRDMA reports it, like a Marker that does not
 *       point to ULPDU_Length, with LLP error code 3 (§8), and a CRC mismatch with code 2.</li>
 * </ul>
 */
final class ReferenceFramer {
    static final int MAX_ULPDU = 64768;
    static final int INTERVAL = 512;
    static final int CRC_ERROR = 2;
    static final int MARKER_OR_LENGTH_ERROR = 3;

    private ReferenceFramer() {
    }

    /** The stream of FPDUs carrying {@code ulpdus} (each at most 64768 octets), from stream octet 0. */
    static byte[] frame(List<byte[]> ulpdus, boolean crc, boolean markers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] u : ulpdus) {
            if (u.length > MAX_ULPDU) {
                throw new IllegalArgumentException("ULPDU of " + u.length + " octets");
            }
            int wireStart = out.size();
            if (markers && out.size() % INTERVAL == 0) {
                marker(out, 0);
            }
            int fpduStart = out.size();
            int pad = -(2 + u.length) & 3;
            byte[] body = new byte[2 + u.length + pad];
            body[0] = (byte) (u.length >>> 8);
            body[1] = (byte) u.length;
            System.arraycopy(u, 0, body, 2, u.length);
            for (int i = 0; i < body.length; i += 4) {
                if (markers && i > 0 && out.size() % INTERVAL == 0) {
                    marker(out, out.size() - fpduStart);
                }
                out.write(body, i, 4);
            }
            if (markers && out.size() % INTERVAL == 0) {
                marker(out, out.size() - fpduStart);
            }
            int value = 0;
            if (crc) {
                CRC32C c = new CRC32C();
                byte[] sofar = out.toByteArray();
                c.update(sofar, wireStart, sofar.length - wireStart);
                value = (int) c.getValue();
            }
            out.write(value);
            out.write(value >>> 8);
            out.write(value >>> 16);
            out.write(value >>> 24);
        }
        return out.toByteArray();
    }

    private static void marker(ByteArrayOutputStream out, int pointer) {
        out.write(0);
        out.write(0);
        out.write(pointer >>> 8);
        out.write(pointer);
    }

    /**
     * What a receiver must make of {@code wire}: the ULPDUs of the complete, valid FPDUs in order, and
     * the LLP error code (0 if none) of the first invalid one, after which nothing more is delivered. A
     * trailing incomplete FPDU is no error.
     */
    record Parsed(List<byte[]> ulpdus, int errorCode) {
    }

    static Parsed parse(byte[] wire, boolean crc, boolean markers) {
        List<byte[]> ulpdus = new ArrayList<>();
        int i = 0;
        while (true) {
            int available = wire.length - i;
            int leading = markers && i % INTERVAL == 0 ? 4 : 0;
            if (available < leading + 2) {
                return new Parsed(ulpdus, 0);
            }
            int length = u16(wire, i + leading);
            if (length > MAX_ULPDU) {
                return new Parsed(ulpdus, MARKER_OR_LENGTH_ERROR);
            }
            int fpduStart = i + leading;
            int unmarked = 2 + length + (-(2 + length) & 3) + 4;
            // Markers strictly inside the FPDU: walk its unmarked octets from one Marker position to the next.
            List<Integer> inner = new ArrayList<>();
            if (markers) {
                int p = fpduStart;
                int remaining = unmarked;
                while (true) {
                    int next = (p / INTERVAL + 1) * INTERVAL;
                    int before = next - p;
                    if (before >= remaining) {
                        break;
                    }
                    remaining -= before;
                    inner.add(next);
                    p = next + 4;
                }
            }
            int wireLength = leading + unmarked + 4 * inner.size();
            if (available < wireLength) {
                return new Parsed(ulpdus, 0);
            }
            if (crc) {
                CRC32C c = new CRC32C();
                c.update(wire, i, wireLength - 4);
                int received = (wire[i + wireLength - 4] & 0xFF) | (wire[i + wireLength - 3] & 0xFF) << 8
                        | (wire[i + wireLength - 2] & 0xFF) << 16 | (wire[i + wireLength - 1] & 0xFF) << 24;
                if ((int) c.getValue() != received) {
                    return new Parsed(ulpdus, CRC_ERROR);
                }
            }
            if (markers) {
                if (leading != 0 && (u16(wire, i + 2) & 0xFFFC) != 0) {
                    return new Parsed(ulpdus, MARKER_OR_LENGTH_ERROR);
                }
                for (int m : inner) {
                    if ((u16(wire, m + 2) & 0xFFFC) != m - fpduStart) {
                        return new Parsed(ulpdus, MARKER_OR_LENGTH_ERROR);
                    }
                }
            }
            // The ULPDU: the octets after ULPDU_Length, Markers left out.
            byte[] ulpdu = new byte[length];
            int from = fpduStart + 2;
            int n = 0;
            int nextMarker = 0;
            for (int k = from; n < length; k++) {
                if (nextMarker < inner.size() && inner.get(nextMarker) == k) {
                    nextMarker++;
                    k += 3;
                    continue;
                }
                ulpdu[n++] = wire[k];
            }
            ulpdus.add(ulpdu);
            i += wireLength;
        }
    }

    private static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
    }

    static byte[] concat(byte[]... parts) {
        int n = Arrays.stream(parts).mapToInt(p -> p.length).sum();
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
