package io.softrdma.samples.nfsrdma;

import static io.softrdma.samples.cli.OptionValues.wholeNumber;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.rpc.RpcAuth;
import io.softrdma.samples.cli.CommandLines;
import io.softrdma.samples.cli.OptionValues;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of the nfs-rdma sample, parsed by picocli. Long options take {@code --name value} or
 * {@code --name=value}; each may be given once.
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
 * @param writeFile {@code --write FILE}: the local file to copy to the server; null when not writing
 * @param to {@code --to PATH}: where {@code --write} puts it, from the server's NFSv4 root
 * @param listPath {@code --ls PATH}: the directory to list with READDIR; null when not listing
 * @param statPath {@code --stat PATH}: the file or directory to GETATTR; null when not
 * @param alwaysReadChunk {@code --write-chunks always}: every WRITE's data by Read chunk; false (auto): only a
 *     WRITE whose call does not fit the send inline threshold
 * @param graceWait {@code --grace-wait}: how long OPEN is retried while the server answers NFS4ERR_GRACE or
 *     NFS4ERR_DELAY
 */
public record NfsRdmaOptions(String host, int port, int nullCalls, String path, long offset, long count,
        int chunkSize, Path out, Stateid stateid, boolean crc, boolean remoteInvalidation, int credits,
        int inlineSize, int window, Duration timeout, Duration firstFpduProbe, String machine, int uid, int gid,
        boolean verbose, Path writeFile, String to, String listPath, String statPath, boolean alwaysReadChunk,
        Duration graceWait) {

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
    /** Linux nfsd's grace period is 90 s; under TCG it ends later. */
    public static final Duration DEFAULT_GRACE_WAIT = Duration.ofSeconds(180);

    /** The options listed under "transport options:" in the usage text: the connection's, and the rest. */
    private static final Set<String> TRANSPORT_OPTIONS = Set.of("--crc", "--no-inv", "--credits", "--inline-size",
            "--timeout", "--probe", "--machine", "--uid", "--gid", "--verbose", "--debug", "--help");

    /** The {@code --help} text, made by picocli from the options below. */
    static final String USAGE = CommandLines.usage(commandLine(new Cli()));

    /** The MPA settings: revision 2, CRC as asked, every MPA timeout the call timeout. */
    public MpaSettings mpaSettings() {
        return MpaSettings.defaults().toBuilder().crc(crc).requestTimeout(timeout).replyTimeout(timeout)
                .acceptTimeout(timeout).firstFpduProbe(firstFpduProbe).build();
    }

    /** The AUTH_SYS credential of every call, stamped {@code stamp}. */
    public RpcAuth credential(int stamp) {
        return RpcAuth.sys(stamp, machine, uid, gid);
    }

    /** Whether this run reads a file. */
    public boolean read() {
        return path != null;
    }

    /** Whether this run writes a file. */
    public boolean write() {
        return writeFile != null;
    }

    /** Whether the arguments ask for the usage text. */
    static boolean wantsHelp(String[] args) {
        return CommandLines.wantsHelp(args);
    }

    /**
     * Parses a command line.
     *
     * @throws IllegalArgumentException naming the mistake
     */
    public static NfsRdmaOptions parse(String... args) {
        Cli cli = new Cli();
        CommandLines.rejectRepeated(CommandLines.parse(commandLine(cli), args, "--"));
        return cli.build();
    }

    private static CommandLine commandLine(Cli cli) {
        // Repeated options are let through here and reported above, with the option's name.
        CommandLine cl = CommandLines.create(cli).setUsageHelpLongOptionsMaxWidth(22);
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> {
            List<CommandLine.Model.OptionSpec> what = new ArrayList<>();
            List<CommandLine.Model.OptionSpec> transport = new ArrayList<>();
            for (CommandLine.Model.OptionSpec o : help.commandSpec().options()) {
                (TRANSPORT_OPTIONS.contains(o.longestName()) ? transport : what).add(o);
            }
            return help.optionListExcludingGroups(what) + help.createHeading("%ntransport options:%n")
                    + help.optionListExcludingGroups(transport);
        });
        return cl;
    }

    /**
     * The command line as picocli reads it: the values as given, checked together by {@link #build()}; the usage
     * text is laid out by {@link CommandLines#create}, its option list split in two by {@link #commandLine}.
     */
    @Command(name = "nfs-rdma", customSynopsis = {
        "nfs-rdma --null N [--host H] [--port P] [transport options]",
        "       nfs-rdma --read PATH [--offset O] [--count C] [--chunk-size S] [--out FILE]",
        "                [--stateid ones|zero] [--window W] [--host H] [--port P] [transport options]",
        "       nfs-rdma --write FILE --to PATH [--chunk-size S] [--window W] [--write-chunks auto|always]",
        "                [--grace-wait SECONDS] [--host H] [--port P] [transport options]",
        "       nfs-rdma --ls PATH | --stat PATH [--host H] [--port P] [transport options]"},
            descriptionHeading = "%n", description = "An NFSv4.0 client over RPC-over-RDMA v1 (RFC 8166), e.g. for"
                    + " the Linux kernel NFS server (svcrdma).",
            footerHeading = "%n",
            footer = "exit status: 0 success, 1 failure (one line \"nfs-rdma: error: ...\" on stderr), 2 bad usage")
    private static final class Cli {
        @Option(names = "--null", paramLabel = "N", description = "make N NULL calls one after the other; print"
                + " each one's latency")
        String nullCalls;
        @Option(names = "--read", paramLabel = "PATH", description = "read PATH (from the server's NFSv4 root, e.g."
                + " /data.bin): COMPOUND PUTROOTFH, LOOKUP per component, GETFH, READ, the data RDMA-Written by the"
                + " server into a Write chunk; print bytes, calls, MB/s and the md5")
        String path;
        @Option(names = "--offset", paramLabel = "O", description = "where to start reading (default 0)")
        String offset;
        @Option(names = "--count", paramLabel = "C", description = "read at most C octets (default: to the end of"
                + " the file, its size taken with GETATTR first)")
        String count;
        @Option(names = "--chunk-size", paramLabel = "S", description = "octets per READ call, 1 to 1048576"
                + " (default 65536; Linux svcrdma's max_block_size, 131072 in the siw VM, bounds one READ)")
        String chunkSize;
        @Option(names = "--out", paramLabel = "FILE", description = "write the octets read to FILE (default: only"
                + " count and hash them)")
        String out;
        @Option(names = "--stateid", paramLabel = "ones|zero", description = "the READ's special stateid: ones, the"
                + " READ bypass (default, allowed during the server's grace period) or zero, the anonymous one")
        String stateid;
        @Option(names = "--window", paramLabel = "W", description = "READ calls in flight at once, 1 to 1024"
                + " (default: the server's credit grant, at most --credits)")
        String window;
        @Option(names = "--write", paramLabel = "FILE", description = "copy the local FILE to --to PATH: SETCLIENTID,"
                + " OPEN (create, truncate) and OPEN_CONFIRM, WRITEs whose data the server RDMA-Reads from a Read"
                + " chunk, COMMIT, CLOSE; print bytes, calls, MB/s, the RDMA Read Requests served and the md5")
        String writeFile;
        @Option(names = "--to", paramLabel = "PATH", description = "where --write puts the file: a path from the"
                + " server's NFSv4 root")
        String to;
        @Option(names = "--write-chunks", paramLabel = "MODE", description = "auto (default): a WRITE whose"
                + " call fits the send inline threshold goes inline, a larger one's data by Read chunk; always: every"
                + " WRITE's data by Read chunk")
        String writeChunks;
        @Option(names = "--grace-wait", paramLabel = "SECONDS", description = "how long OPEN is retried while the"
                + " server is in its grace period (NFS4ERR_GRACE) or busy (default 180)")
        String graceWait;
        @Option(names = "--ls", paramLabel = "PATH", description = "list the directory PATH with READDIR: name,"
                + " type and size of each entry")
        String listPath;
        @Option(names = "--stat", paramLabel = "PATH", description = "GETATTR of PATH: filehandle, type and size")
        String statPath;
        @Option(names = "--host", paramLabel = "H", description = "the server (default 127.0.0.1)")
        String host;
        @Option(names = "--port", paramLabel = "P", description = "its NFS/RDMA port (default 20049)")
        String port;
        // transport options (TRANSPORT_OPTIONS), in a section of the usage text of their own
        @Option(names = "--crc", paramLabel = "on|off", description = "request MPA CRCs (default off; on when the"
                + " server asks)")
        String crc;
        @Option(names = "--no-inv", description = "advertise R=0 in the RFC 8797 private data: the server must not"
                + " reply with Send with Invalidate, this side invalidates its STags itself")
        boolean noInvalidation;
        @Option(names = "--credits", paramLabel = "N", description = "calls outstanding this side asks for, 1 to"
                + " 1024 (default 32)")
        String credits;
        @Option(names = "--inline-size", paramLabel = "N", description = "RFC 8797 inline send and receive size,"
                + " 1024 to 262144 in whole KiB (default 4096)")
        String inlineSize;
        @Option(names = "--timeout", paramLabel = "SECONDS", description = "bound on connecting and on each call"
                + " (default 30)")
        String timeout;
        @Option(names = "--probe", paramLabel = "MS", description = "if nothing answers the first message for MS"
                + " milliseconds, send one zero-length RDMA Write, which revives a Linux 6.1 siw peer that missed"
                + " it (default 200; 0 turns it off)")
        String probe;
        @Option(names = "--machine", paramLabel = "NAME", description = "AUTH_SYS machine name (default softrdma)")
        String machine;
        @Option(names = "--uid", paramLabel = "N", description = "AUTH_SYS uid (default 0)")
        String uid;
        @Option(names = "--gid", paramLabel = "N", description = "AUTH_SYS gid (default 0)")
        String gid;
        @Option(names = {"-v", "--verbose"}, description = "a line per call")
        boolean verbose;
        /** Read by {@link NfsRdmaMain#main}, which takes it out of the arguments; listed here for --help. */
        @Option(names = "--debug", description = "keep the log lines of Netty and SoftRDMA (hidden otherwise)")
        boolean debug;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;

        NfsRdmaOptions build() {
            int nullCalls = this.nullCalls == null ? 0
                    : (int) wholeNumber(this.nullCalls, "--null", 1, 1_000_000, " (NULL calls to make)");
            for (String p : new String[] {path, to, listPath, statPath}) {
                if (p != null) {
                    Nfs4Compound.pathComponents(p); // the path's own checks, with their message
                }
            }
            if (to != null && Nfs4Compound.pathComponents(to).isEmpty()) {
                throw new IllegalArgumentException("--to " + to + ": give a file name, e.g. /copy.bin");
            }
            if (writeFile != null && writeFile.isBlank()) {
                throw new IllegalArgumentException("--write needs a file name");
            }
            boolean alwaysReadChunk = this.writeChunks != null && switch (this.writeChunks) {
                case "always" -> true;
                case "auto" -> false;
                default -> throw new IllegalArgumentException("--write-chunks " + this.writeChunks + ": use auto or"
                        + " always");
            };
            Duration graceWait = this.graceWait == null ? DEFAULT_GRACE_WAIT
                    : Duration.ofSeconds(wholeNumber(this.graceWait, "--grace-wait", 0, 3600, " (seconds)"));
            if (host != null && host.isBlank()) {
                throw new IllegalArgumentException("--host needs a host name or address");
            }
            int port = this.port == null ? DEFAULT_PORT : (int) wholeNumber(this.port, "--port", 1, 65535);
            long offset = this.offset == null ? 0 : wholeNumber(this.offset, "--offset", 0, Long.MAX_VALUE);
            long count = this.count == null ? -1 : wholeNumber(this.count, "--count", 1, Long.MAX_VALUE, " (octets"
                    + " to read; leave it out to read to the end of the file)");
            int chunkSize = this.chunkSize == null ? DEFAULT_CHUNK_SIZE : (int) wholeNumber(this.chunkSize,
                    "--chunk-size", 1, MAX_CHUNK_SIZE, " (octets per READ call; Linux svcrdma serves at most"
                            + " max_block_size, 131072 in the siw VM, per READ)");
            if (out != null && out.isBlank()) {
                throw new IllegalArgumentException("--out needs a file name");
            }
            Stateid stateid = this.stateid == null ? Stateid.ONES : switch (this.stateid) {
                case "ones" -> Stateid.ONES;
                case "zero" -> Stateid.ZERO;
                default -> throw new IllegalArgumentException("--stateid " + this.stateid + ": use ones (READ"
                        + " bypass) or zero (anonymous)");
            };
            int window = this.window == null ? 0 : (int) wholeNumber(this.window, "--window", 1, 1024, " (READ calls"
                    + " in flight)");
            boolean crc = this.crc != null && OptionValues.onOff(this.crc, "--crc");
            int credits = this.credits == null ? DEFAULT_CREDITS : (int) wholeNumber(this.credits, "--credits", 1,
                    1024, " (calls outstanding)");
            int inlineSize = this.inlineSize == null ? DEFAULT_INLINE_SIZE : (int) wholeNumber(this.inlineSize,
                    "--inline-size", 1024, 262144, " in whole KiB (RFC 8797 encodes KiB - 1 in one octet)");
            if (inlineSize % 1024 != 0) {
                throw new IllegalArgumentException("--inline-size " + this.inlineSize + " must be a whole number of KiB"
                        + " (a multiple of 1024): RFC 8797 advertises sizes in KiB");
            }
            Duration timeout = this.timeout == null ? DEFAULT_TIMEOUT : OptionValues.timeout(this.timeout, "--timeout");
            Duration firstFpduProbe = probe == null ? MpaSettings.defaults().firstFpduProbe()
                    : Duration.ofMillis(wholeNumber(probe, "--probe", 0, 60_000, " (milliseconds; 0 turns the probe"
                            + " off)"));
            if (machine != null) {
                int octets = machine.getBytes(StandardCharsets.UTF_8).length;
                if (octets == 0 || octets > 255) {
                    throw new IllegalArgumentException("--machine needs a name of 1 to 255 octets (AUTH_SYS)");
                }
            }
            int uid = this.uid == null ? 0 : (int) wholeNumber(this.uid, "--uid", 0, 0xFFFF_FFFFL);
            int gid = this.gid == null ? 0 : (int) wholeNumber(this.gid, "--gid", 0, 0xFFFF_FFFFL);
            List<String> modes = new ArrayList<>();
            if (nullCalls > 0) {
                modes.add("--null");
            }
            for (String[] m : new String[][] {{path, "--read"}, {writeFile, "--write"}, {listPath, "--ls"},
                {statPath, "--stat"}}) {
                if (m[0] != null) {
                    modes.add(m[1]);
                }
            }
            if (modes.size() > 1) {
                throw new IllegalArgumentException(String.join(" and ", modes) + " exclude each other: one run"
                        + " makes NULL calls, reads a file, writes one, lists a directory or stats a path");
            }
            if (modes.isEmpty()) {
                throw new IllegalArgumentException("say what to do: --null N (N NULL calls), --read PATH, --write FILE"
                        + " --to PATH, --ls PATH or --stat PATH");
            }
            if (writeFile != null && to == null) {
                throw new IllegalArgumentException("--write needs --to PATH: where the file goes on the server");
            }
            String mode = modes.get(0);
            List<String> misplaced = new ArrayList<>();
            String[] values = {this.offset, this.count, this.chunkSize, out, this.stateid, this.window, to,
                this.writeChunks, this.graceWait};
            String[] names = {"--offset", "--count", "--chunk-size", "--out", "--stateid", "--window", "--to",
                "--write-chunks", "--grace-wait"};
            Set<String> allowed = switch (mode) {
                case "--read" -> Set.of("--offset", "--count", "--chunk-size", "--out", "--stateid", "--window");
                case "--write" -> Set.of("--chunk-size", "--window", "--to", "--write-chunks", "--grace-wait");
                default -> Set.of();
            };
            for (int i = 0; i < names.length; i++) {
                if (values[i] != null && !allowed.contains(names[i])) {
                    misplaced.add(names[i]);
                }
            }
            if (!misplaced.isEmpty()) {
                throw new IllegalArgumentException(String.join(", ", misplaced) + (misplaced.size() == 1 ? " is"
                        : " are") + " not for " + mode);
            }
            return new NfsRdmaOptions(host == null ? DEFAULT_HOST : host.trim(), port, nullCalls, path, offset, count,
                    chunkSize, out == null ? null : Path.of(out), stateid, crc, !noInvalidation, credits, inlineSize,
                    window, timeout, firstFpduProbe, machine == null ? DEFAULT_MACHINE : machine, uid, gid,
                    verbose, writeFile == null ? null : Path.of(writeFile), to, listPath, statPath, alwaysReadChunk,
                    graceWait);
        }
    }
}
