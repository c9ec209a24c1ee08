package io.softrdma.samples.nfsrdma;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.rpc.RpcAuth;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line of the nfs-rdma sample. Long options take {@code --name value} or {@code --name=value}.
 *
 * <p>Thread safety: immutable.
 *
 * @param host {@code --host}: the NFS server (default 127.0.0.1)
 * @param port {@code --port}: its NFS/RDMA port (default 20049)
 * @param nullCalls {@code --null N}: make N NULL calls; 0 when reading
 * @param path {@code --read PATH}: the file to read, from the server's NFSv4 root; null for {@code --null}
 * @param offset {@code --offset}: where to start reading
 * @param count {@code --count}: octets to read at most; -1 (the default) reads to the end of the file
 * @param chunkSize {@code --chunk-size}: octets per READ call, each into a Write chunk of that size
 * @param out {@code --out}: where the octets read go; null: nowhere (only counted and hashed)
 * @param stateid {@code --stateid}: the special stateid of the READs
 * @param crc {@code --crc}: request MPA CRCs
 * @param remoteInvalidation the RFC 8797 R flag this side advertises; {@code --no-inv} clears it
 * @param credits {@code --credits}: the most calls outstanding this side asks for (and posts receives for)
 * @param inlineSize {@code --inline-size}: the RFC 8797 inline send and receive sizes advertised
 * @param window {@code --window}: READ calls in flight at once; 0 (the default) for the server's credit grant
 * @param timeout {@code --timeout}: bound on connecting and on each call
 * @param firstFpduProbe {@code --probe}: how long to wait for any answer to the first FPDU before one zero-length
 *     RDMA Write revives a Linux 6.1 siw peer that missed it (see {@link MpaSettings#firstFpduProbe()}); zero: never
 * @param machine {@code --machine}: AUTH_SYS machine name
 * @param uid {@code --uid}: AUTH_SYS uid
 * @param gid {@code --gid}: AUTH_SYS gid
 * @param verbose {@code -v}: a line per call
 */
public record NfsRdmaOptions(String host, int port, int nullCalls, String path, long offset, long count,
        int chunkSize, Path out, Stateid stateid, boolean crc, boolean remoteInvalidation, int credits,
        int inlineSize, int window, Duration timeout, Duration firstFpduProbe, String machine, int uid, int gid,
        boolean verbose) {

    /** The special stateid of a READ (RFC 7530 §9.1.4.3). */
    public enum Stateid {
        /** All ones: the READ-bypass stateid, allowed during the grace period. */
        ONES,
        /** All zeros: the anonymous stateid, refused with NFS4ERR_GRACE during the grace period. */
        ZERO;

        public byte[] bytes() {
            return this == ONES ? Nfs4.readBypassStateid() : Nfs4.anonymousStateid();
        }
    }

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 20049;
    /** 64 KiB per READ: Linux svcrdma's largest is max_block_size, 128 KiB in the siw VM. */
    public static final int DEFAULT_CHUNK_SIZE = 64 * 1024;
    /** The sample's bound on one READ: beyond the server's own bound, it returns less and the rest is re-read. */
    public static final int MAX_CHUNK_SIZE = 1024 * 1024;
    public static final int DEFAULT_CREDITS = 32;
    public static final int DEFAULT_INLINE_SIZE = 4096;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final String DEFAULT_MACHINE = "softrdma";

    static final String USAGE = """
            usage: nfs-rdma --null N [--host H] [--port P] [transport options]
                   nfs-rdma --read PATH [--offset O] [--count C] [--chunk-size S] [--out FILE]
                            [--stateid ones|zero] [--window W] [--host H] [--port P] [transport options]

            An NFSv4.0 client over RPC-over-RDMA v1 (RFC 8166), e.g. for the Linux kernel NFS server (svcrdma).

              --null N             make N NULL calls one after the other; print each one's latency
              --read PATH          read PATH (from the server's NFSv4 root, e.g. /data.bin): COMPOUND
                                   PUTROOTFH, LOOKUP per component, GETFH, READ, the data RDMA-Written by
                                   the server into a Write chunk; print bytes, calls, MB/s and the md5
              --offset O           where to start reading (default 0)
              --count C            read at most C octets (default: to the end of the file, its size taken
                                   with GETATTR first)
              --chunk-size S       octets per READ call, 1 to 1048576 (default 65536; Linux svcrdma's
                                   max_block_size, 131072 in the siw VM, bounds one READ)
              --out FILE           write the octets read to FILE (default: only count and hash them)
              --stateid ones|zero  the READ's special stateid: ones, the READ bypass (default, allowed
                                   during the server's grace period) or zero, the anonymous one
              --window W           READ calls in flight at once, 1 to 1024 (default: the server's credit
                                   grant, at most --credits)
              --host H             the server (default 127.0.0.1)
              --port P             its NFS/RDMA port (default 20049)

            transport options:
              --crc on|off         request MPA CRCs (default off; on when the server asks)
              --no-inv             advertise R=0 in the RFC 8797 private data: the server must not reply
                                   with Send with Invalidate, this side invalidates its STags itself
              --credits N          calls outstanding this side asks for, 1 to 1024 (default 32)
              --inline-size N      RFC 8797 inline send and receive size, 1024 to 262144 in whole KiB
                                   (default 4096)
              --timeout SECONDS    bound on connecting and on each call (default 30)
              --probe MS           if nothing answers the first message for MS milliseconds, send one
                                   zero-length RDMA Write, which revives a Linux 6.1 siw peer that missed
                                   it (default 200; 0 turns it off)
              --machine NAME       AUTH_SYS machine name (default softrdma)
              --uid N, --gid N     AUTH_SYS uid and gid (default 0 and 0)
              -v, --verbose        a line per call
              --debug              keep the log lines of Netty and SoftRDMA (hidden otherwise)
              -h, --help           this text

            exit status: 0 success, 1 failure (one line "nfs-rdma: error: ..." on stderr), 2 bad usage
            """;

    /** The MPA settings: revision 2, CRC as asked, every MPA timeout the call timeout. */
    public MpaSettings mpaSettings() {
        return MpaSettings.defaults().toBuilder().crc(crc).requestTimeout(timeout).replyTimeout(timeout)
                .acceptTimeout(timeout).firstFpduProbe(firstFpduProbe).build();
    }

    /** The AUTH_SYS credential of every call, stamped {@code stamp}. */
    public RpcAuth credential(int stamp) {
        return RpcAuth.sys(stamp, machine, uid, gid);
    }

    /** Whether this run reads a file (else it makes NULL calls). */
    public boolean read() {
        return path != null;
    }

    /** Whether the arguments ask for the usage text. */
    static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses a command line.
     *
     * @throws IllegalArgumentException naming the mistake
     */
    public static NfsRdmaOptions parse(String... args) {
        Builder b = new Builder();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-v") || a.equals("--verbose")) {
                b.verbose = true;
                continue;
            }
            if (a.equals("--no-inv")) {
                b.remoteInvalidation = false;
                continue;
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException(a.startsWith("-") ? "unknown option " + a
                        : "unexpected argument " + a + " (options start with --)");
            }
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            if (!Builder.VALUED.contains(name)) {
                throw new IllegalArgumentException("unknown option " + name);
            }
            if (value == null) {
                if (++i >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                value = args[i];
            }
            b.option(name, value);
        }
        return b.build();
    }

    /** Collects the options in any order; {@link #build()} checks them together. */
    private static final class Builder {
        static final Set<String> VALUED = Set.of("--host", "--port", "--null", "--read", "--offset", "--count",
                "--chunk-size", "--out", "--stateid", "--crc", "--credits", "--inline-size", "--window", "--timeout",
                "--probe", "--machine", "--uid", "--gid");
        /** Options that make sense only with --read. */
        static final List<String> READ_ONLY = List.of("--offset", "--count", "--chunk-size", "--out", "--stateid",
                "--window");

        final Set<String> seen = new LinkedHashSet<>();
        String host = DEFAULT_HOST;
        int port = DEFAULT_PORT;
        int nullCalls;
        String path;
        long offset;
        long count = -1;
        int chunkSize = DEFAULT_CHUNK_SIZE;
        Path out;
        Stateid stateid = Stateid.ONES;
        boolean crc;
        boolean remoteInvalidation = true;
        int credits = DEFAULT_CREDITS;
        int inlineSize = DEFAULT_INLINE_SIZE;
        int window;
        Duration timeout = DEFAULT_TIMEOUT;
        Duration firstFpduProbe = MpaSettings.defaults().firstFpduProbe();
        String machine = DEFAULT_MACHINE;
        int uid;
        int gid;
        boolean verbose;

        void option(String name, String v) {
            if (!seen.add(name)) {
                throw new IllegalArgumentException(name + " is given twice");
            }
            switch (name) {
                case "--host" -> {
                    if (v.isBlank()) {
                        throw new IllegalArgumentException("--host needs a host name or address");
                    }
                    host = v.trim();
                }
                case "--port" -> port = (int) number(v, name, 1, 65535, "");
                case "--null" -> nullCalls = (int) number(v, name, 1, 1_000_000, " (NULL calls to make)");
                case "--read" -> {
                    Nfs4Compound.pathComponents(v); // the path's own checks, with their message
                    path = v;
                }
                case "--offset" -> offset = number(v, name, 0, Long.MAX_VALUE, "");
                case "--count" -> count = number(v, name, 1, Long.MAX_VALUE, " (octets to read; leave it out to"
                        + " read to the end of the file)");
                case "--chunk-size" -> chunkSize = (int) number(v, name, 1, MAX_CHUNK_SIZE, " (octets per READ"
                        + " call; Linux svcrdma serves at most max_block_size, 131072 in the siw VM, per READ)");
                case "--out" -> {
                    if (v.isBlank()) {
                        throw new IllegalArgumentException("--out needs a file name");
                    }
                    out = Path.of(v);
                }
                case "--stateid" -> stateid = switch (v) {
                    case "ones" -> Stateid.ONES;
                    case "zero" -> Stateid.ZERO;
                    default -> throw new IllegalArgumentException("--stateid " + v + ": use ones (READ bypass) or"
                            + " zero (anonymous)");
                };
                case "--crc" -> crc = switch (v) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("--crc " + v + ": use on or off");
                };
                case "--credits" -> credits = (int) number(v, name, 1, 1024, " (calls outstanding)");
                case "--inline-size" -> {
                    inlineSize = (int) number(v, name, 1024, 262144, " in whole KiB (RFC 8797 encodes KiB - 1 in"
                            + " one octet)");
                    if (inlineSize % 1024 != 0) {
                        throw new IllegalArgumentException("--inline-size " + v + " must be a whole number of KiB"
                                + " (a multiple of 1024): RFC 8797 advertises sizes in KiB");
                    }
                }
                case "--window" -> window = (int) number(v, name, 1, 1024, " (READ calls in flight)");
                case "--timeout" -> timeout = seconds(v);
                case "--probe" -> firstFpduProbe = Duration.ofMillis(number(v, name, 0, 60_000, " (milliseconds; 0"
                        + " turns the probe off)"));
                case "--machine" -> {
                    int octets = v.getBytes(StandardCharsets.UTF_8).length;
                    if (octets == 0 || octets > 255) {
                        throw new IllegalArgumentException("--machine needs a name of 1 to 255 octets (AUTH_SYS)");
                    }
                    machine = v;
                }
                case "--uid" -> uid = (int) number(v, name, 0, 0xFFFF_FFFFL, "");
                case "--gid" -> gid = (int) number(v, name, 0, 0xFFFF_FFFFL, "");
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }

        NfsRdmaOptions build() {
            if (nullCalls > 0 && path != null) {
                throw new IllegalArgumentException("--null and --read exclude each other: one run makes NULL calls"
                        + " or reads a file");
            }
            if (nullCalls == 0 && path == null) {
                throw new IllegalArgumentException("say what to do: --null N (N NULL calls) or --read PATH");
            }
            if (nullCalls > 0) {
                List<String> misplaced = new ArrayList<>();
                for (String o : READ_ONLY) {
                    if (seen.contains(o)) {
                        misplaced.add(o);
                    }
                }
                if (!misplaced.isEmpty()) {
                    throw new IllegalArgumentException(String.join(", ", misplaced) + (misplaced.size() == 1 ? " is"
                            : " are") + " for --read, not --null");
                }
            }
            return new NfsRdmaOptions(host, port, nullCalls, path, offset, count, chunkSize, out, stateid, crc,
                    remoteInvalidation, credits, inlineSize, window, timeout, firstFpduProbe, machine, uid, gid, verbose);
        }

        private static long number(String v, String option, long min, long max, String what) {
            try {
                long n = Long.parseLong(v.trim());
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + " " + v + " must be a whole number from " + min + " to "
                    + max + what);
        }

        private static Duration seconds(String v) {
            try {
                double s = Double.parseDouble(v.trim());
                if (s > 0 && s <= 86_400) {
                    return Duration.ofNanos(Math.max(1_000_000L, (long) (s * 1e9)));
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("--timeout " + v + " must be a number of seconds above 0 (at most"
                    + " 86400)");
        }
    }
}
