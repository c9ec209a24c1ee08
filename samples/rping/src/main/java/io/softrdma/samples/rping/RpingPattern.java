package io.softrdma.samples.rping;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The ping data rping's client puts in its start buffer for each ping ({@code rping_test_client} in
 * librdmacm's {@code examples/rping.c}):
 *
 * <pre>
 *   cc = snprintf(start_buf, size, "rdma-ping-%d: ", ping);
 *   for (i = cc, c = start; i &lt; size; i++) { start_buf[i] = c; if (++c &gt; 122) c = 65; }
 *   if (++start &gt; 122) start = 65;
 *   start_buf[size - 1] = 0;
 * </pre>
 *
 * {@code start} begins at 65 ('A'), so ping {@code n} starts its run of characters at
 * {@code 65 + n % 58}. The server can therefore check what it read without being told.
 *
 * <p>Thread safety: stateless.
 */
public final class RpingPattern {
    /** 'A': the first character of ping 0's run, and where a run wraps to. */
    static final int FIRST = 65;
    /** 'z': the last character before the run wraps to 'A'. */
    static final int LAST = 122;
    /** Characters in one cycle of the run: 'A' to 'z'. */
    static final int CYCLE = LAST - FIRST + 1;

    private RpingPattern() {
    }

    /** The character ping {@code ping} starts its run with. */
    public static int startChar(int ping) {
        return FIRST + Math.floorMod(ping, CYCLE);
    }

    /** rping's {@code RPING_MSG_FMT} for this ping: {@code "rdma-ping-%d: "}. */
    public static String prefix(int ping) {
        return "rdma-ping-" + ping + ": ";
    }

    /** The {@code size} octets of ping {@code ping}, the last one NUL. */
    public static byte[] bytes(int ping, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a ping buffer needs at least 1 octet (its NUL), not " + size);
        }
        byte[] out = new byte[size];
        byte[] p = prefix(ping).getBytes(StandardCharsets.US_ASCII);
        // snprintf writes at most size - 1 characters; the run starts where the full text would end.
        System.arraycopy(p, 0, out, 0, Math.min(p.length, size - 1));
        int c = startChar(ping);
        for (int i = p.length; i < size; i++) {
            out[i] = (byte) c;
            if (++c > LAST) {
                c = FIRST;
            }
        }
        out[size - 1] = 0;
        return out;
    }

    /** Writes ping {@code ping}'s {@code size} octets at index 0 of {@code dst}. */
    public static void fill(ByteBuf dst, int ping, int size) {
        dst.setBytes(0, bytes(ping, size));
    }

    /**
     * The octets of {@code src} from {@code index} up to the first NUL (at most {@code max}), as
     * rping's {@code printf("%s")} shows them.
     */
    public static String cString(ByteBuf src, int index, int max) {
        int n = strlen(src, index, max);
        return src.toString(index, n, StandardCharsets.ISO_8859_1);
    }

    /** C's strlen within {@code max} octets: {@code max} when there is no NUL. */
    public static int strlen(ByteBuf src, int index, int max) {
        int nul = src.indexOf(index, index + max, (byte) 0);
        return nul < 0 ? max : nul - index;
    }
}
