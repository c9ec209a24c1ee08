package io.softrdma.samples.nfsrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.rpc.RpcRdmaProtocolException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import reactor.core.publisher.Flux;

/**
 * Reads a file with NFSv4.0 READ COMPOUNDs, each READ's data RDMA-Written by the server into a Write chunk that is a
 * slice of a direct output buffer. The range is cut into {@code --chunk-size} READs, and up to {@code --window} of
 * them are in flight at once (the connection itself never has more outstanding than the server's credit grant); the
 * replies are taken in order. A READ that comes back short with EOF ends the read there; one that comes back short
 * without EOF (the server's own bound per READ is smaller than the chunk) has its remainder read at once.
 *
 * <p>Without {@code --count}, a GETATTR first gives the file's size, and the read goes on until a READ says EOF.
 *
 * <p>Thread safety: one run, one thread.
 */
final class NfsReader {
    /** The most octets held in memory between writes to the output file. */
    static final int SEGMENT = 64 * 1024 * 1024;

    private final NfsClient client;
    private final NfsRdmaOptions options;
    private final PrintStream out;
    private final List<String> path;
    private final String shownPath;
    private final byte[] stateid;
    private final MessageDigest md5;
    private long calls;
    private long remotelyInvalidated;
    private long readNanos;
    private byte[] fileHandle;

    NfsReader(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        this.client = client;
        this.options = options;
        this.out = out;
        this.path = Nfs4Compound.pathComponents(options.path());
        this.shownPath = "/" + String.join("/", path);
        this.stateid = options.stateid().bytes();
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no MD5 in this JVM", e);
        }
    }

    /** What a read did. */
    record Outcome(long bytes, long calls, boolean eof, double seconds, String md5, long remotelyInvalidated,
            byte[] fileHandle) {
        double megabytesPerSecond() {
            return seconds > 0 ? bytes / seconds / 1e6 : 0;
        }
    }

    Outcome run() {
        long remaining;
        boolean untilEof = options.count() < 0;
        if (untilEof) {
            Nfs4CompoundReply attrs = client.getattr(path, shownPath);
            Nfs4CompoundReply.Attributes a = attrs.attributes();
            if (a.type() == Nfs4.NF4DIR) {
                throw new Nfs4Exception("READ " + shownPath + ": it is a directory; READ needs a regular file",
                        Nfs4.NFS4ERR_ISDIR, Nfs4.OP_GETATTR);
            }
            fileHandle = attrs.fileHandle();
            remaining = Math.max(0, a.size() - options.offset());
            out.println("nfs-rdma: " + shownPath + ": filehandle " + attrs.fileHandleHex() + " (" + attrs.fileHandle()
                    .length + " octets), size " + a.size() + (a.type() == Nfs4.NF4REG ? "" : ", type " + a.type()));
        } else {
            remaining = options.count();
        }
        int window = options.window() > 0 ? options.window() : options.credits();
        out.println("nfs-rdma: reading " + shownPath + " from offset " + options.offset() + ", " + (untilEof
                ? remaining + " octets to the end of the file" : "at most " + remaining + " octets") + ", in READs of "
                + options.chunkSize() + " octets, up to " + window + " in flight (stateid " + options.stateid()
                .name().toLowerCase(Locale.ROOT) + ")");

        long position = options.offset();
        long total = 0;
        boolean eof = false;
        try (FileChannel file = options.out() == null ? null : FileChannel.open(options.out(),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            // Until EOF: the planned range, then (if the file grew, or the server never said EOF) a READ at a time.
            while (!eof && (remaining > 0 || untilEof)) {
                int segment = (int) Math.min(remaining > 0 ? remaining : options.chunkSize(), SEGMENT);
                ByteBuf buffer = Unpooled.directBuffer(segment, segment);
                try {
                    Segment s;
                    try {
                        s = readSegment(buffer, position, segment, window);
                    } catch (RuntimeException e) {
                        // READs may still be in flight: end the connection, so that no RDMA Write can land in the
                        // buffer once it is released.
                        client.close();
                        throw e;
                    }
                    eof = s.eof;
                    ByteBuffer data = buffer.nioBuffer(0, s.length);
                    md5.update(data.duplicate());
                    if (file != null) {
                        while (data.hasRemaining()) {
                            file.write(data);
                        }
                    }
                    position += s.length;
                    total += s.length;
                    remaining = Math.max(0, remaining - s.length);
                    if (s.length == 0 && !eof) {
                        throw new RpcRdmaProtocolException("READ " + shownPath + " at offset " + position
                                + " returned no data and no EOF");
                    }
                } finally {
                    buffer.release();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + options.out() + ": " + e.getMessage(), e);
        }
        return new Outcome(total, calls, eof, readNanos / 1e9, HexFormat.of().formatHex(md5.digest()),
                remotelyInvalidated, fileHandle);
    }

    private record Segment(int length, boolean eof) {}

    /**
     * Reads {@code length} octets at {@code position} into {@code buffer}: the READs pipelined, then taken in
     * order. Returns how many octets are valid from the buffer's start, and whether EOF was reached.
     */
    private Segment readSegment(ByteBuf buffer, long position, int length, int window) {
        int chunk = options.chunkSize();
        int n = (length + chunk - 1) / chunk;
        long t0 = System.nanoTime();
        List<NfsClient.ReadResult> results = Flux.range(0, n).flatMapSequential(i -> {
            int at = i * chunk;
            ByteBuf sink = buffer.slice(at, Math.min(chunk, length - at)).writerIndex(0);
            return client.read(path, shownPath, stateid, position + at, sink);
        }, window, 1).collectList().block();
        readNanos += System.nanoTime() - t0;
        results.forEach(this::account); // every READ sent counts, also those past an EOF found before them
        int valid = 0;
        for (NfsClient.ReadResult r : results) {
            int at = (int) (r.offset() - position);
            valid = at + r.length();
            if (r.length() < r.requested()) {
                if (r.eof()) {
                    return new Segment(valid, true);
                }
                // Short without EOF: the server's bound per READ is below the chunk; read the rest now.
                Segment rest = fill(buffer, position, at + r.length(), at + r.requested());
                valid = rest.length;
                if (rest.eof) {
                    return rest;
                }
            } else if (r.eof()) {
                return new Segment(valid, true);
            }
        }
        return new Segment(valid, false);
    }

    /** Reads [from, to) of the segment one READ after the other; returns the valid length and EOF. */
    private Segment fill(ByteBuf buffer, long position, int from, int to) {
        int at = from;
        while (at < to) {
            ByteBuf sink = buffer.slice(at, Math.min(options.chunkSize(), to - at)).writerIndex(0);
            long t0 = System.nanoTime();
            NfsClient.ReadResult r = client.read(path, shownPath, stateid, position + at, sink).block();
            readNanos += System.nanoTime() - t0;
            account(r);
            at += r.length();
            if (r.eof()) {
                return new Segment(at, true);
            }
            if (r.length() == 0) {
                throw new RpcRdmaProtocolException("READ " + shownPath + " at offset " + (position + at)
                        + " returned no data and no EOF");
            }
        }
        return new Segment(at, false);
    }

    private void account(NfsClient.ReadResult r) {
        calls++;
        if (r.remotelyInvalidated()) {
            remotelyInvalidated++;
        }
        if (fileHandle == null) {
            fileHandle = r.fileHandle();
        }
        if (options.verbose()) {
            out.println("nfs-rdma: READ offset " + r.offset() + " count " + r.requested() + ": " + r.length()
                    + " octets, eof " + (r.eof() ? 1 : 0) + ", reply " + (r.remotelyInvalidated()
                            ? "Send with Invalidate" : "Send"));
        }
    }
}
