package io.softrdma.samples.nfsrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rpc.RpcCallHeader;
import io.softrdma.rpc.RpcRdmaHeader;
import io.softrdma.rpc.RpcRdmaProtocolException;
import io.softrdma.rpc.Xdr;
import io.softrdma.verbs.QueuePairCounters;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * Copies a local file to the server with NFSv4.0 (RFC 7530): {@code SETCLIENTID} and {@code SETCLIENTID_CONFIRM};
 * {@code OPEN} (create or truncate, write access) and {@code OPEN_CONFIRM}, which Linux nfsd asks of every new
 * open-owner in NFSv4.0; the file in {@code --chunk-size} {@code WRITE}s (UNSTABLE4), up to {@code --window} in
 * flight; {@code COMMIT}, whose verifier must match the WRITEs'; and {@code CLOSE} with a {@code GETATTR} of the
 * size. A WRITE whose call does not fit the send inline threshold carries its data in a Read chunk (RFC 8166 §3.4.5,
 * RFC 8267): the server RDMA-Reads it from the registered slice of the file's buffer before it replies.
 *
 * <p>An OPEN refused with {@code NFS4ERR_GRACE} (the server's grace period after a start) or {@code NFS4ERR_DELAY}
 * is tried again each second for up to {@code --grace-wait}, with a new open-owner each time (a failed OPEN leaves
 * no confirmed owner whose seqid would have to be followed).
 *
 * <p>Thread safety: one run, one thread.
 */
final class NfsWriter {
    /** The most octets of the file held in memory at once. */
    static final int SEGMENT = 64 * 1024 * 1024;
    /** The mode the file is created with: rw-r--r--. */
    static final int MODE = 0644;

    private final NfsClient client;
    private final NfsRdmaOptions options;
    private final PrintStream out;
    private final List<String> to;
    private final String shownPath;
    private final MessageDigest md5;
    /** Octets of a WRITE call besides its data and the data's padding: headers and arguments. */
    private final int inlineOverhead;
    private long calls;
    private long chunked;
    private long remotelyInvalidated;
    private long writeNanos;
    private byte[] verifier;

    NfsWriter(NfsClient client, NfsRdmaOptions options, PrintStream out) {
        this.client = client;
        this.options = options;
        this.out = out;
        this.to = Nfs4Compound.pathComponents(options.to());
        this.shownPath = "/" + String.join("/", to);
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no MD5 in this JVM", e);
        }
        // What a WRITE call holds besides its COMPOUND arguments: the transport header without chunks and the RPC
        // call header with its credential (whose length does not depend on the stamp).
        // And its COMPOUND arguments up to the data, with a filehandle of the largest size, to be safe.
        ByteBuf probe = ByteBufAllocator.DEFAULT.heapBuffer();
        int writeArgs;
        try {
            writeArgs = Nfs4Compound.encodeWrite(probe, new byte[Nfs4.FHSIZE], new byte[Nfs4.STATEID_LENGTH], 0, 0, 0);
        } finally {
            probe.release();
        }
        this.inlineOverhead = RpcRdmaHeader.message(0, 0, List.of(), List.of(), null).encodedLength()
                + RpcCallHeader.of(0, Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, options.credential(0))
                        .encodedLength() + writeArgs;
    }

    /**
     * What a copy did.
     *
     * @param readRequests RDMA Read Requests the server sent while the WRITEs ran (served from the Read chunks)
     * @param readResponseOctets the data octets this side sent back in Read Responses
     */
    record Outcome(long bytes, long calls, long chunked, double seconds, String md5, long remotelyInvalidated,
            long readRequests, long readResponseOctets, long sizeAfterClose, String verifier) {
        double megabytesPerSecond() {
            return seconds > 0 ? bytes / seconds / 1e6 : 0;
        }
    }

    Outcome run() {
        List<String> directory = to.subList(0, to.size() - 1);
        String name = to.get(to.size() - 1);
        long clientId = setClientId();
        // OPEN (create, truncate) with a new open-owner each try; seqid 0 starts its sequence.
        Nfs4CompoundReply opened = open(directory, name, clientId);
        byte[] fh = opened.fileHandle();
        if (fh == null) {
            throw new RpcRdmaProtocolException("OPEN " + shownPath + ": the COMPOUND reply has no GETFH result");
        }
        byte[] stateid = opened.open().stateid();
        int seqid = 0;
        boolean confirmed = opened.open().needsConfirm();
        if (confirmed) {
            // RFC 7530 §16.18: the first OPEN of a new open-owner is confirmed with the owner's next seqid.
            seqid++;
            ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
            Nfs4Compound.encodeOpenConfirm(args, fh, stateid, seqid);
            stateid = client.compound(args, "OPEN_CONFIRM " + shownPath, List.of()).stateid();
        }
        out.println("nfs-rdma: OPEN " + shownPath + ": filehandle " + HexFormat.of().formatHex(fh) + " ("
                + fh.length + " octets), " + (confirmed ? "confirmed with OPEN_CONFIRM" : "no OPEN_CONFIRM asked")
                + ", delegation " + opened.open().delegation() + ", open stateid seqid "
                + Integer.toUnsignedString(ByteBuffer.wrap(stateid).getInt()));

        QueuePairCounters counters = client.connection().connection().queuePair().counters();
        long requestsBefore = counters.messages(RdmapOpcode.RDMA_READ_REQUEST, true);
        long responseOctetsBefore = counters.octets(RdmapOpcode.RDMA_READ_RESPONSE, false);
        long total = 0;
        int window = options.window() > 0 ? options.window() : options.credits();
        try (FileChannel file = FileChannel.open(options.writeFile(), StandardOpenOption.READ)) {
            long size = file.size();
            out.println("nfs-rdma: writing " + size + " octets of " + options.writeFile() + " to " + shownPath
                    + " in WRITEs of " + options.chunkSize() + " octets, up to " + window + " in flight, data by "
                    + (options.alwaysReadChunk() ? "Read chunk always" : "Read chunk above the send inline threshold"
                    + " of " + client.connection().parameters().sendInlineThreshold() + " octets"));
            while (total < size) {
                int segment = (int) Math.min(size - total, SEGMENT);
                ByteBuf buffer = Unpooled.directBuffer(segment, segment);
                try {
                    ByteBuffer nio = buffer.nioBuffer(0, segment);
                    while (nio.hasRemaining()) {
                        if (file.read(nio, total + nio.position()) < 0) {
                            throw new IOException("the file ended early, at " + (total + nio.position()) + " octets");
                        }
                    }
                    buffer.writerIndex(segment);
                    md5.update(buffer.nioBuffer(0, segment));
                    try {
                        writeSegment(fh, stateid, buffer, total, window);
                    } catch (RuntimeException e) {
                        // WRITEs may still be in flight: end the connection, so that no RDMA Read can reach the
                        // buffer once it is released.
                        client.close();
                        throw e;
                    }
                    total += segment;
                } finally {
                    buffer.release();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + options.writeFile() + ": " + e.getMessage(), e);
        }
        long readRequests = counters.messages(RdmapOpcode.RDMA_READ_REQUEST, true) - requestsBefore;
        long readResponseOctets = counters.octets(RdmapOpcode.RDMA_READ_RESPONSE, false) - responseOctetsBefore;

        // COMMIT all of it (count 0: to the end); the verifier must be the WRITEs' (RFC 7530 §16.3.5).
        ByteBuf commitArgs = ByteBufAllocator.DEFAULT.buffer();
        Nfs4Compound.encodeCommit(commitArgs, fh, 0, 0);
        byte[] committed = client.compound(commitArgs, "COMMIT " + shownPath, List.of()).commitVerifier();
        if (verifier != null && !Arrays.equals(verifier, committed)) {
            throw new NfsRdmaException("COMMIT " + shownPath + ": the server's write verifier changed from "
                    + HexFormat.of().formatHex(verifier) + " to " + HexFormat.of().formatHex(committed) + " (it"
                    + " restarted?): the unstable data may be lost; write the file again");
        }
        seqid++;
        ByteBuf closeArgs = ByteBufAllocator.DEFAULT.buffer();
        Nfs4Compound.encodeClose(closeArgs, fh, seqid, stateid);
        Nfs4CompoundReply closed = client.compound(closeArgs, "CLOSE " + shownPath, List.of());
        long sizeAfter = closed.attributes() == null ? -1 : closed.attributes().size();
        if (sizeAfter != total) {
            throw new NfsRdmaException("CLOSE " + shownPath + ": the file's size is " + sizeAfter + " after writing "
                    + total + " octets");
        }
        return new Outcome(total, calls, chunked, writeNanos / 1e9, HexFormat.of().formatHex(md5.digest()),
                remotelyInvalidated, readRequests, readResponseOctets, sizeAfter,
                HexFormat.of().formatHex(committed));
    }

    /** SETCLIENTID and SETCLIENTID_CONFIRM (RFC 7530 §16.33, §16.34): a client id unique to this run. */
    private long setClientId() {
        SecureRandom random = new SecureRandom();
        byte[] boot = new byte[Nfs4.VERIFIER_LENGTH];
        random.nextBytes(boot);
        String id = "softrdma nfs-rdma " + options.machine() + " " + ProcessHandle.current().pid() + " "
                + HexFormat.of().formatHex(boot);
        ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
        Nfs4Compound.encodeSetClientId(args, boot, id, 1);
        Nfs4CompoundReply.ClientId c = client.compound(args, "SETCLIENTID", List.of()).clientId();
        ByteBuf confirm = ByteBufAllocator.DEFAULT.buffer();
        Nfs4Compound.encodeSetClientIdConfirm(confirm, c.clientId(), c.confirm());
        client.compound(confirm, "SETCLIENTID_CONFIRM", List.of());
        out.println("nfs-rdma: SETCLIENTID: clientid " + String.format("0x%016x", c.clientId()) + ", confirmed");
        return c.clientId();
    }

    private Nfs4CompoundReply open(List<String> directory, String name, long clientId) {
        long deadline = System.nanoTime() + options.graceWait().toNanos();
        boolean said = false;
        for (int attempt = 1; ; attempt++) {
            ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
            byte[] owner = ("nfs-rdma open-owner " + attempt).getBytes(StandardCharsets.UTF_8);
            Nfs4Compound.encodeOpenCreate(args, directory, name, 0, clientId, owner, MODE);
            try {
                Nfs4CompoundReply r = client.compound(args, "OPEN " + shownPath, to);
                if (r.open() == null) {
                    throw new RpcRdmaProtocolException("OPEN " + shownPath + ": the COMPOUND reply has no OPEN"
                            + " result");
                }
                return r;
            } catch (Nfs4Exception e) {
                boolean retry = e.status() == Nfs4.NFS4ERR_GRACE || e.status() == Nfs4.NFS4ERR_DELAY;
                if (!retry || System.nanoTime() > deadline) {
                    throw e;
                }
                if (!said) {
                    out.println("nfs-rdma: OPEN " + shownPath + ": " + Nfs4.statusName(e.status()) + "; trying again"
                            + " each second for up to " + NfsClient.seconds(options.graceWait()));
                    said = true;
                }
                sleep(Duration.ofSeconds(1));
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NfsRdmaException("interrupted while waiting for the server's grace period to end");
        }
    }

    /** Writes the buffer's octets at file offset {@code position}: the WRITEs pipelined, the replies in order. */
    private void writeSegment(byte[] fh, byte[] stateid, ByteBuf buffer, long position, int window) {
        int chunk = options.chunkSize();
        int length = buffer.readableBytes();
        int n = (length + chunk - 1) / chunk;
        long t0 = System.nanoTime();
        List<NfsClient.WriteResult> results = Flux.range(0, n).flatMapSequential(i -> {
            int at = i * chunk;
            ByteBuf data = buffer.slice(at, Math.min(chunk, length - at));
            return client.write(fh, stateid, position + at, data, readChunk(data.readableBytes()), shownPath);
        }, window, 1).collectList().block();
        writeNanos += System.nanoTime() - t0;
        for (NfsClient.WriteResult r : results) {
            account(r);
            int at = (int) (r.offset() - position);
            // A short WRITE (the server's own bound per call is below the chunk): the rest, one WRITE at a time.
            for (int done = r.count(); done < r.requested(); ) {
                ByteBuf rest = buffer.slice(at + done, r.requested() - done);
                long t1 = System.nanoTime();
                NfsClient.WriteResult more = client.write(fh, stateid, position + at + done, rest,
                        readChunk(rest.readableBytes()), shownPath).block();
                writeNanos += System.nanoTime() - t1;
                account(more);
                if (more.count() == 0) {
                    throw new RpcRdmaProtocolException("WRITE " + shownPath + " at offset " + more.offset()
                            + " took no data");
                }
                done += more.count();
            }
        }
    }

    /** Whether a WRITE of {@code length} octets sends them by Read chunk: always, or when it does not fit inline. */
    boolean readChunk(int length) {
        if (options.alwaysReadChunk()) {
            return true;
        }
        return inlineOverhead + length + Xdr.pad(length) > client.connection().parameters().sendInlineThreshold();
    }

    private void account(NfsClient.WriteResult r) {
        calls++;
        if (r.readChunk()) {
            chunked++;
        }
        if (r.remotelyInvalidated()) {
            remotelyInvalidated++;
        }
        if (verifier == null) {
            verifier = r.verifier();
        } else if (!Arrays.equals(verifier, r.verifier())) {
            throw new NfsRdmaException("WRITE " + shownPath + " at offset " + r.offset() + ": the server's write"
                    + " verifier changed from " + HexFormat.of().formatHex(verifier) + " to "
                    + HexFormat.of().formatHex(r.verifier()) + " (it restarted?): write the file again");
        }
        if (options.verbose()) {
            out.println("nfs-rdma: WRITE offset " + r.offset() + " count " + r.requested() + ": " + r.count()
                    + " octets, " + (r.committed() == Nfs4.UNSTABLE4 ? "unstable" : r.committed() == Nfs4.FILE_SYNC4
                            ? "file sync" : "data sync") + ", data " + (r.readChunk() ? "by Read chunk" : "inline")
                    + ", reply " + (r.remotelyInvalidated() ? "Send with Invalidate" : "Send"));
        }
    }
}
