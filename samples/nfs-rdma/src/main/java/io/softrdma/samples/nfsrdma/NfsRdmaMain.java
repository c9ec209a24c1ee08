package io.softrdma.samples.nfsrdma;

import io.softrdma.ConnectionClosedException;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.rpc.RpcAcceptedException;
import io.softrdma.rpc.RpcDeniedException;
import io.softrdma.rpc.RpcProgramMismatchException;
import io.softrdma.rpc.RpcRdmaConnection;
import io.softrdma.rpc.RpcRdmaErrorException;
import io.softrdma.rpc.RpcRdmaProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;
import reactor.core.Exceptions;

/**
 * {@code nfs-rdma}: an NFSv4.0 client over RPC-over-RDMA version 1 (RFC 8166) on SoftRDMA's {@code RpcRdmaClient},
 * for a server such as the Linux kernel's (svcrdma).
 *
 * <pre>
 *   java -jar nfs-rdma.jar --host H --port P --null N
 *   java -jar nfs-rdma.jar --host H --port P --read PATH [--offset O] [--count C] [--chunk-size S] --out FILE
 * </pre>
 *
 * Exit status: 0 on success, 1 after a failure (one line on standard error starting with {@code "nfs-rdma: error:
 * "}), 2 for a bad command line (with the usage text).
 *
 * @see NfsRdmaOptions for every option
 */
public final class NfsRdmaMain {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    private NfsRdmaMain() {
    }

    public static void main(String[] args) {
        if (!NfsRdmaOptions.wantsHelp(args) && !Arrays.asList(args).contains("--debug")) {
            // Netty and SoftRDMA log through java.util.logging: their warnings about a connection that ended would
            // add lines to the one a failure gets.
            Logger.getLogger("").setLevel(Level.SEVERE);
        }
        System.exit(run(Arrays.stream(args).filter(a -> !a.equals("--debug")).toArray(String[]::new), System.out,
                System.err));
    }

    /** Runs the sample with {@code args}, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (NfsRdmaOptions.wantsHelp(args)) {
            out.print(NfsRdmaOptions.USAGE);
            out.flush();
            return OK;
        }
        NfsRdmaOptions options;
        try {
            options = NfsRdmaOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("nfs-rdma: " + e.getMessage());
            err.print(NfsRdmaOptions.USAGE);
            err.flush();
            return USAGE;
        }
        if (options.write() && !(Files.isRegularFile(options.writeFile()) && Files.isReadable(options.writeFile()))) {
            // Before anything reaches the server: OPEN would truncate the file there.
            err.println("nfs-rdma: error: cannot read " + options.writeFile() + ": " + (Files.exists(options
                    .writeFile()) ? "not a readable regular file" : "no such file"));
            err.flush();
            return FAILED;
        }
        NfsClient client = null;
        try {
            client = NfsClient.connect(options, (int) (System.currentTimeMillis() / 1000));
            out.println("nfs-rdma: connected to " + options.host() + ":" + options.port() + ": "
                    + client.describeConnection());
            if (options.read()) {
                read(client, options, out);
            } else if (options.write()) {
                write(client, options, out);
            } else if (options.listPath() != null) {
                list(client, options, out);
            } else if (options.statPath() != null) {
                stat(client, options, out);
            } else {
                nulls(client, options, out);
            }
            return OK;
        } catch (RuntimeException e) {
            err.println("nfs-rdma: error: " + describe(Exceptions.unwrap(e)));
            return FAILED;
        } finally {
            if (client != null) {
                client.close();
            }
            out.flush();
            err.flush();
        }
    }

    private static void nulls(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        long[] micros = new long[options.nullCalls()];
        for (int i = 0; i < micros.length; i++) {
            Long nanos;
            try {
                nanos = client.nullCall().block();
            } catch (RuntimeException e) {
                throw new NfsRdmaException("NULL call " + (i + 1) + " of " + micros.length + ": "
                        + describe(Exceptions.unwrap(e)), e);
            }
            micros[i] = nanos / 1000;
            out.println("nfs-rdma: NULL " + (i + 1) + ": " + micros[i] + " µs");
        }
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        long median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        out.println("nfs-rdma: " + n + " NULL call" + (n == 1 ? "" : "s") + " OK: latency min " + sorted[0]
                + " µs, median " + median + " µs, max " + sorted[n - 1] + " µs; credits granted "
                + client.connection().creditsGranted() + " (used up to " + client.connection().creditLimit() + ")");
    }

    private static void read(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        NfsReader.Outcome o = new NfsReader(client, options, out).run();
        RpcRdmaConnection c = client.connection();
        out.println(String.format(Locale.ROOT, "nfs-rdma: read %d octets of %s in %d READ call%s, %.3f s, %.2f MB/s%s",
                o.bytes(), "/" + String.join("/", Nfs4Compound.pathComponents(options.path())), o.calls(),
                o.calls() == 1 ? "" : "s", o.seconds(), o.megabytesPerSecond(), o.eof() ? ", EOF reached" : ""));
        out.println("nfs-rdma: credits granted " + c.creditsGranted() + " (used up to " + c.creditLimit()
                + "); invalidations: remote " + c.remoteInvalidations() + ", local " + c.localInvalidations());
        out.println("nfs-rdma: md5 " + o.md5());
        if (options.out() != null) {
            out.println("nfs-rdma: wrote " + o.bytes() + " octets to " + options.out());
        }
    }

    private static void write(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        NfsWriter.Outcome o = new NfsWriter(client, options, out).run();
        RpcRdmaConnection c = client.connection();
        String to = "/" + String.join("/", Nfs4Compound.pathComponents(options.to()));
        out.println(String.format(Locale.ROOT, "nfs-rdma: wrote %d octets of %s to %s in %d WRITE call%s (%d by Read"
                + " chunk, %d inline), %.3f s, %.2f MB/s", o.bytes(), options.writeFile(), to, o.calls(),
                o.calls() == 1 ? "" : "s", o.chunked(), o.calls() - o.chunked(), o.seconds(), o.megabytesPerSecond()));
        out.println("nfs-rdma: RDMA Read Requests served: " + o.readRequests() + ", " + o.readResponseOctets()
                + " octets in Read Responses");
        out.println("nfs-rdma: COMMIT verifier " + o.verifier() + " matches the WRITEs'; CLOSE: size "
                + o.sizeAfterClose());
        out.println("nfs-rdma: credits granted " + c.creditsGranted() + " (used up to " + c.creditLimit()
                + "); invalidations: remote " + c.remoteInvalidations() + ", local " + c.localInvalidations());
        out.println("nfs-rdma: md5 " + o.md5());
    }

    /** READDIR in batches that fit the receive inline threshold, until the server says EOF. */
    private static void list(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        List<String> path = Nfs4Compound.pathComponents(options.listPath());
        String shown = "/" + String.join("/", path);
        // The reply goes inline: leave room below the threshold for the headers and the lookups' results.
        int maxcount = Math.max(1024, client.connection().parameters().receiveInlineThreshold() - 512);
        long cookie = 0;
        byte[] verifier = new byte[Nfs4.VERIFIER_LENGTH];
        int entries = 0;
        int calls = 0;
        while (true) {
            ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
            Nfs4Compound.encodeReaddir(args, path, cookie, verifier, maxcount, maxcount);
            Nfs4CompoundReply.Directory d = client.compound(args, "READDIR " + shown, path).directory();
            calls++;
            if (d == null) {
                throw new RpcRdmaProtocolException("READDIR " + shown + ": the COMPOUND reply has no READDIR result");
            }
            for (Nfs4CompoundReply.Entry e : d.entries()) {
                entries++;
                out.println("nfs-rdma: entry " + e.name() + " " + typeName(e.attributes().type()) + " "
                        + e.attributes().size());
                cookie = e.cookie();
            }
            verifier = d.cookieVerifier();
            if (d.eof()) {
                break;
            }
            if (d.entries().isEmpty()) {
                throw new RpcRdmaProtocolException("READDIR " + shown + ": no entries and no EOF");
            }
        }
        out.println("nfs-rdma: " + shown + ": " + entries + " entr" + (entries == 1 ? "y" : "ies") + " in " + calls
                + " READDIR call" + (calls == 1 ? "" : "s"));
    }

    private static void stat(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        List<String> path = Nfs4Compound.pathComponents(options.statPath());
        String shown = "/" + String.join("/", path);
        Nfs4CompoundReply r = client.getattr(path, shown);
        out.println("nfs-rdma: " + shown + ": filehandle " + r.fileHandleHex() + ", type "
                + typeName(r.attributes().type()) + ", size " + r.attributes().size());
    }

    static String typeName(int type) {
        return switch (type) {
            case Nfs4.NF4REG -> "file";
            case Nfs4.NF4DIR -> "directory";
            case Nfs4.NF4LNK -> "symlink";
            case Nfs4.NF4BLK -> "block-device";
            case Nfs4.NF4CHR -> "char-device";
            default -> "type-" + type;
        };
    }

    /** One line for a failure: what the server or the transport said, in words. */
    static String describe(Throwable t) {
        if (t instanceof NfsRdmaException || t instanceof Nfs4Exception) {
            return t.getMessage();
        }
        if (t instanceof RpcProgramMismatchException e) {
            return "the server does not serve NFS version " + Nfs4.VERSION + ": it has versions " + e.low() + " to "
                    + e.high() + " (PROG_MISMATCH)";
        }
        if (t instanceof RpcAcceptedException e) {
            return "the server accepted the call but answered " + e.stat() + " (" + e.getMessage() + ")";
        }
        if (t instanceof RpcDeniedException e) {
            return "the server denied the call: " + e.getMessage() + (e.rejectStat() == 1 ? authHint(e.authStat())
                    : "");
        }
        if (t instanceof RpcRdmaErrorException e) {
            return "the server refused the RPC-over-RDMA message: " + e.getMessage();
        }
        if (t instanceof RpcRdmaProtocolException e) {
            return "protocol error: " + e.getMessage();
        }
        if (t instanceof ConnectionClosedException e) {
            return "the connection to the server ended: " + e.getMessage();
        }
        if (t instanceof TerminateException e) {
            return "the connection was terminated: " + e.getMessage();
        }
        if (t instanceof ConnectException e) {
            return "connection refused (" + e.getMessage() + "): is the NFS/RDMA server listening there?";
        }
        if (t instanceof UncheckedIOException e) {
            return e.getMessage();
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.toString() : t.getClass().getSimpleName() + ": " + m
                + (t.getCause() != null && t.getCause() != t && t.getCause().getMessage() != null
                        ? " (" + t.getCause().getMessage() + ")" : "");
    }

    private static String authHint(int authStat) {
        return switch (authStat) {
            case 1 -> " (AUTH_BADCRED: the server refused the AUTH_SYS credential's form)";
            case 2 -> " (AUTH_REJECTEDCRED)";
            case 5 -> " (AUTH_TOOWEAK: the export needs a stronger flavor than AUTH_SYS)";
            default -> "";
        };
    }
}
