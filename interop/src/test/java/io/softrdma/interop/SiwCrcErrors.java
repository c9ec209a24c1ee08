package io.softrdma.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises the {@code siw: crc error} lines of a Linux siw bug, so that an interop case can tell it from a wrong
 * CRC on SoftRDMA's side.
 *
 * <p>The bug: {@code siw_get_trailer()} (drivers/infiniband/sw/siw/siw_qp_rx.c, since "RDMA/siw: Always consume all
 * skbuf data in sk_data_ready() upcall", 2022, in Debian's 6.1) reads an FPDU's PAD and CRC into a 4-octet buffer.
 * When they arrive in two socket buffers (a TCP segment boundary inside the CRC), each part is copied to the start
 * of the buffer: the second part overwrites the first, and the buffer's end keeps the octets of an earlier CRC.
 * siw then compares its own (right) CRC with that mix and ends the connection with Terminate LLP/MPA "CRC error".
 * Between the host and the guest, qemu's slirp cuts the stream into 1460-octet segments wherever it falls, so an
 * FPDU's CRC straddles two segments now and then. Seen with SoftRDMA's 64 KiB Read Responses to svcrdma's RDMA Reads
 * (NFS WRITE, CRC on): a capture of such a run on the host (../shared/tools/wire-check) found every FPDU's CRC
 * right, and every siw line showed the pattern below.
 *
 * <p>The pattern. The trailer is {@code p} octets of PAD (0 to 3) and the 4 of the CRC, c0..c3 in wire order (siw
 * prints each value with %08x of a little-endian word, so the printed hex is the octets in reverse). If the first
 * segment held k of its octets (1 to p + 3), the buffer ends up holding trailer octets k, k+1, ... from its start,
 * then those of the first part the second did not overwrite, then stale ones. So octet j of the value siw read is
 * the own CRC's octet k + j for j &lt;= 3 - k, its own octet j where p + j &lt; k, and anything otherwise. A line
 * shows the bug when, for some p and k, at least two octets are so constrained and all of them match. A wrong CRC
 * from SoftRDMA would match by chance with a probability below 2^-11 (18 cases of 2^-16); the four lines seen
 * all had k = 3 and p = 0, which constrains three octets.
 *
 * <p>Thread safety: stateless.
 */
final class SiwCrcErrors {
    static final Pattern LINE = Pattern.compile("siw: crc error\\. in: ([0-9a-f]{8}), own ([0-9a-f]{8}), op (\\d+)");

    private SiwCrcErrors() {
    }

    /** The {@code siw: crc error} lines of a kernel log. */
    static List<String> find(String log) {
        List<String> lines = new ArrayList<>();
        Matcher m = LINE.matcher(log);
        while (m.find()) {
            lines.add(m.group());
        }
        return lines;
    }

    /** Whether a {@code siw: crc error} line shows the split-trailer bug. */
    static boolean isSplitTrailer(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return false;
        }
        byte[] in = wire(m.group(1));
        byte[] own = wire(m.group(2));
        if (java.util.Arrays.equals(in, own)) {
            return false;
        }
        for (int pad = 0; pad <= 3; pad++) {
            for (int k = 1; k <= pad + 3; k++) {
                int constrained = 0;
                boolean match = true;
                for (int j = 0; j < 4; j++) {
                    if (j <= 3 - k) {
                        match &= in[j] == own[k + j];
                        constrained++;
                    } else if (pad + j < k) {
                        match &= in[j] == own[j];
                        constrained++;
                    }
                }
                if (match && constrained >= 2) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The octets of a value siw printed with %08x from a little-endian word, in wire order. */
    private static byte[] wire(String hex) {
        long v = Long.parseLong(hex, 16);
        return new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)};
    }
}
