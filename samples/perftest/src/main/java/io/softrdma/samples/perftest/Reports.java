package io.softrdma.samples.perftest;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

/**
 * perftest's result lines and their arithmetic ({@code print_report_bw}, {@code print_report_lat},
 * {@code xchg_bw_reports}), from perftest 4.5-0.17's {@code perftest_parameters.c}. Times are in nanoseconds
 * here where perftest counts CPU cycles; the units printed are the same.
 *
 * <p>Thread safety: stateless.
 */
final class Reports {
    static final String RESULT_LINE =
            "---------------------------------------------------------------------------------------";
    static final String RESULT_FMT = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_G = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    static final String RESULT_FMT_LAT = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    static final String RESULT_FMT_LAT_DUR = " #bytes        #iterations       t_avg[usec]    tps average";
    /** perftest's version, exchanged first: perftest 4.5-0.17 is 6.06 inside, and refuses anything under 5.70. */
    static final String VERSION = "6.06";

    private Reports() {
    }

    /** perftest's {@code struct bw_report_data}, as far as {@code xchg_bw_reports} sends it. */
    record Bw(long size, long iters, double peak, double avg, double msgRate) {
        /** The line under RESULT_FMT: REPORT_FMT. */
        String line() {
            return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", size, iters,
                    peak, avg, msgRate);
        }
    }

    /**
     * The bandwidth of a run, as print_report_bw computes it.
     *
     * @param posted when each message was posted (ns), completed when its completion was seen
     */
    static Bw bandwidth(int size, long[] posted, long[] completed, int n, boolean gbits) {
        double factor = gbits ? 125_000_000.0 : 0x100000;
        double seconds = Math.max(completed[n - 1] - posted[0], 1) / 1e9;
        double avg = (double) size * n / seconds / factor;
        double msgRate = n / seconds / 1e6;
        // Peak: the shortest time per message over any stretch from a post to a later completion, in steps of
        // perftest's default CQ moderation (100).
        double best = (completed[n - 1] - posted[0]) / (double) n;
        for (int i = 0; i < n; i += 100) {
            for (int j = Math.min(n - 1, i + 99); j < n; j += 100) {
                best = Math.min(best, (completed[j] - posted[i]) / (double) (j - i + 1));
            }
        }
        double peak = best <= 0 ? avg : size / (best / 1e9) / factor;
        return new Bw(size, n, peak, avg, msgRate);
    }

    /** One value of xchg_bw_reports: perftest sends each field in its own exchange, 8 octets big-endian. */
    static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static byte[] doubleBytes(double v) {
        return ByteBuffer.allocate(8).putDouble(v).array();
    }

    static long longOf(byte[] b) {
        return ByteBuffer.wrap(b).getLong();
    }

    static double doubleOf(byte[] b) {
        return ByteBuffer.wrap(b).getDouble();
    }

    /**
     * The latency line of a run: print_report_lat over the gaps between successive posts (one round trip for
     * Send and Write, halved; one Read), without the two largest, as perftest's LAT_MEASURE_TAIL.
     */
    static String latency(int size, long[] posted, int iters, boolean read) {
        int rtt = read ? 1 : 2;
        int measured = iters - 1;
        double[] delta = new double[measured];
        for (int i = 0; i < measured; i++) {
            delta[i] = (posted[i + 1] - posted[i]) / 1000.0 / rtt;
        }
        Arrays.sort(delta);
        int cnt = Math.max(measured - 2, 1);
        double median = (cnt - 1) % 2 != 0 ? (delta[cnt / 2] + delta[cnt / 2 - 1]) / 2 : delta[cnt / 2];
        double sum = 0;
        for (int i = 0; i < cnt; i++) {
            sum += delta[i];
        }
        double avg = sum / cnt;
        double var = 0;
        for (int i = 0; i < cnt; i++) {
            var += (avg - delta[i]) * (avg - delta[i]);
        }
        double stdev = Math.sqrt(var / cnt);
        int i99 = Math.min((int) Math.ceil(cnt * 0.99), measured - 1);
        int i999 = Math.min((int) Math.ceil(cnt * 0.999), measured - 1);
        return String.format(Locale.ROOT,
                " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f", size,
                iters, delta[0], delta[Math.min(cnt, measured - 1)], median, avg, stdev, delta[i99], delta[i999]);
    }

    /** The -D latency line: average time per round and rounds per second. */
    static String latencyDuration(int size, long rounds, long nanos, boolean read) {
        int rtt = read ? 1 : 2;
        double avg = rounds == 0 ? 0 : nanos / 1000.0 / rounds / rtt;
        double tps = rounds / (nanos / 1e9);
        return String.format(Locale.ROOT, " %-7d       %d            %-7.2f        %-7.2f", size, rounds, avg, tps);
    }
}
