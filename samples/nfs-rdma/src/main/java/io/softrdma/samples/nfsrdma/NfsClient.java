package io.softrdma.samples.nfsrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.rpc.RpcRdmaClient;
import io.softrdma.rpc.RpcRdmaConnection;
import io.softrdma.rpc.RpcRdmaProtocolException;
import io.softrdma.rpc.RpcReply;
import io.softrdma.rpc.Xdr;
import java.time.Duration;
import java.util.List;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * NFSv4.0 procedures on one RPC-over-RDMA connection: NULL, a GETATTR COMPOUND and a READ COMPOUND whose data the
 * server RDMA-Writes into a Write chunk (the caller's direct buffer). Every call is bounded by the options' timeout.
 *
 * <p>Thread safety: the calls may be made from any thread; {@link #close()} once.
 */
final class NfsClient implements AutoCloseable {
    private final RpcRdmaConnection connection;
    private final Duration timeout;

    private NfsClient(RpcRdmaConnection connection, Duration timeout) {
        this.connection = connection;
        this.timeout = timeout;
    }

    /**
     * Connects as the options say, with an AUTH_SYS credential stamped {@code stamp}.
     *
     * @throws NfsRdmaException naming the server and the cause, when it cannot
     */
    static NfsClient connect(NfsRdmaOptions o, int stamp) {
        RpcRdmaClient client = RpcRdmaClient.create().host(o.host()).port(o.port()).mpa(o.mpaSettings())
                .inlineSizes(o.inlineSize(), o.inlineSize()).remoteInvalidation(o.remoteInvalidation())
                .maxCredits(o.credits()).credential(o.credential(stamp)).connectTimeout(o.timeout());
        RpcRdmaConnection c;
        try {
            c = client.connect().timeout(o.timeout().plusSeconds(1), Mono.error(() -> new NfsRdmaException(
                    "no RPC-over-RDMA connection within " + seconds(o.timeout())))).block();
        } catch (RuntimeException e) {
            Throwable t = Exceptions.unwrap(e);
            throw new NfsRdmaException("cannot connect to " + o.host() + ":" + o.port() + " (RPC-over-RDMA, MPA CRC "
                    + (o.crc() ? "on" : "off") + "): " + NfsRdmaMain.describe(t), t);
        }
        if (c == null) {
            throw new NfsRdmaException("cannot connect to " + o.host() + ":" + o.port() + ": no connection");
        }
        return new NfsClient(c, o.timeout());
    }

    RpcRdmaConnection connection() {
        return connection;
    }

    /** The connection as set up: MPA and RFC 8797, for the first line of output. */
    String describeConnection() {
        RpcRdmaParameters p = connection.parameters();
        MpaNegotiation n = connection.connection().negotiation();
        String server = p.peerAdvertised() ? "R=" + (p.peer().remoteInvalidation() ? 1 : 0) + " send "
                + p.peer().sendSize() + " receive " + p.peer().receiveSize() : "sent no RFC 8797 block (defaults)";
        return "MPA rev " + n.revision() + ", CRC " + (n.crc() ? "on" : "off") + ", IRD " + n.ird() + " ORD " + n.ord()
                + "; RFC 8797: this side R=" + (p.local().remoteInvalidation() ? 1 : 0) + " send "
                + p.local().sendSize() + " receive " + p.local().receiveSize() + ", server " + server
                + "; inline thresholds: send " + p.sendInlineThreshold() + ", receive " + p.receiveInlineThreshold();
    }

    /** NFSPROC4_NULL: emits the reply's round trip in nanoseconds. */
    Mono<Long> nullCall() {
        return Mono.defer(() -> {
            long t0 = System.nanoTime();
            return bounded(connection.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_NULL, Unpooled.EMPTY_BUFFER), "NULL")
                    .map(reply -> {
                        long nanos = System.nanoTime() - t0;
                        try {
                            if (reply.results().isReadable()) {
                                throw new RpcRdmaProtocolException("the NULL reply has " + reply.results()
                                        .readableBytes() + " octets of results; NULL returns none");
                            }
                        } finally {
                            reply.release();
                        }
                        return nanos;
                    });
        });
    }

    /**
     * {@code PUTROOTFH; LOOKUP...; GETFH; GETATTR {type, size}}.
     *
     * @throws Nfs4Exception if an operation failed
     */
    Nfs4CompoundReply getattr(List<String> path, String shownPath) {
        ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
        Nfs4Compound.encodeGetattr(args, path);
        Nfs4CompoundReply reply = bounded(connection.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args),
                "GETATTR " + shownPath).map(r -> {
                    try {
                        return Nfs4CompoundReply.decode(r.results(), false);
                    } finally {
                        r.release();
                    }
                }).block();
        Nfs4Exception e = reply.toException("GETATTR " + shownPath, path);
        if (e != null) {
            throw e;
        }
        if (reply.attributes() == null || reply.attributes().size() < 0) {
            throw new NfsRdmaException("GETATTR " + shownPath + ": the server returned no size");
        }
        return reply;
    }

    /**
     * One READ of {@code sink.writableBytes()} octets at {@code offset}, into {@code sink} as the call's Write
     * chunk. Emits what came back; an NFS error is an {@link Nfs4Exception}.
     */
    Mono<ReadResult> read(List<String> path, String shownPath, byte[] stateid, long offset, ByteBuf sink) {
        return Mono.defer(() -> {
            int count = sink.writableBytes();
            int before = sink.writerIndex();
            ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
            Nfs4Compound.encodeRead(args, path, stateid, offset, count);
            String what = "READ " + shownPath + " at offset " + offset + " count " + count;
            return bounded(connection.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args, sink), what)
                    .map(r -> {
                        Nfs4CompoundReply reply;
                        try {
                            reply = Nfs4CompoundReply.decode(r.results(), true);
                        } finally {
                            r.release();
                        }
                        Nfs4Exception e = reply.toException(what, path);
                        if (e != null) {
                            throw e;
                        }
                        Nfs4CompoundReply.Read read = reply.read();
                        if (read == null) {
                            throw new RpcRdmaProtocolException(what + ": the COMPOUND reply has no READ result");
                        }
                        long placed = sink.writerIndex() - before;
                        if (read.length() != r.writeChunkOctets() || placed != r.writeChunkOctets()) {
                            throw new RpcRdmaProtocolException(what + ": READ says " + read.length() + " octets,"
                                    + " the Write chunk's echo says " + r.writeChunkOctets() + ", the sink advanced "
                                    + placed);
                        }
                        if (read.length() > count) {
                            throw new RpcRdmaProtocolException(what + ": READ returned " + read.length()
                                    + " octets, more than asked for");
                        }
                        return new ReadResult(offset, count, (int) read.length(), read.eof(), r.remotelyInvalidated(),
                                reply.fileHandle());
                    });
        });
    }

    /**
     * One COMPOUND with inline arguments and results, decoded; an NFS error is an {@link Nfs4Exception} naming
     * {@code what}.
     *
     * @param path the components the COMPOUND looks up, to name a failed LOOKUP's
     */
    Nfs4CompoundReply compound(ByteBuf args, String what, List<String> path) {
        Nfs4CompoundReply reply = bounded(connection.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args), what)
                .map(r -> {
                    try {
                        return Nfs4CompoundReply.decode(r.results(), false);
                    } finally {
                        r.release();
                    }
                }).block();
        Nfs4Exception e = reply.toException(what, path);
        if (e != null) {
            throw e;
        }
        return reply;
    }

    /**
     * {@code PUTFH; WRITE} of the readable octets of {@code data} at {@code offset}, UNSTABLE4. With {@code
     * readChunk} the data goes in a Read chunk (RFC 8166 §3.4.5, RFC 8267): the server RDMA-Reads it from {@code
     * data}, registered for this call only; else it is copied inline, padded. {@code data} stays the caller's and
     * must not change until the Mono ends.
     */
    Mono<WriteResult> write(byte[] fh, byte[] stateid, long offset, ByteBuf data, boolean readChunk, String shown) {
        return Mono.defer(() -> {
            int length = data.readableBytes();
            ByteBuf args = ByteBufAllocator.DEFAULT.buffer();
            int position = Nfs4Compound.encodeWrite(args, fh, stateid, offset, Nfs4.UNSTABLE4, length);
            String what = "WRITE " + shown + " at offset " + offset + " count " + length;
            Mono<RpcReply> call;
            if (readChunk) {
                call = connection.callWithData(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args, position, data);
            } else {
                args.writeBytes(data, data.readerIndex(), length);
                args.writeZero(Xdr.pad(length));
                call = connection.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args);
            }
            return bounded(call, what).map(r -> {
                Nfs4CompoundReply reply;
                try {
                    reply = Nfs4CompoundReply.decode(r.results(), false);
                } finally {
                    r.release();
                }
                Nfs4Exception e = reply.toException(what, List.of());
                if (e != null) {
                    throw e;
                }
                Nfs4CompoundReply.Write w = reply.write();
                if (w == null) {
                    throw new RpcRdmaProtocolException(what + ": the COMPOUND reply has no WRITE result");
                }
                if (w.count() > length) {
                    throw new RpcRdmaProtocolException(what + ": WRITE says it wrote " + w.count() + " octets, more"
                            + " than it was given");
                }
                return new WriteResult(offset, length, (int) w.count(), w.committed(), w.verifier(), readChunk,
                        r.remotelyInvalidated());
            });
        });
    }

    /**
     * One WRITE's outcome.
     *
     * @param offset where it wrote
     * @param requested octets sent
     * @param count octets the server took
     * @param committed the stability the server gave them ({@link Nfs4#UNSTABLE4}, ...)
     * @param verifier the server's write verifier
     * @param readChunk whether the data went by Read chunk
     * @param remotelyInvalidated whether the reply was a Send with Invalidate of the chunk's STag
     */
    record WriteResult(long offset, int requested, int count, int committed, byte[] verifier, boolean readChunk,
            boolean remotelyInvalidated) {}

    private <T> Mono<T> bounded(Mono<T> call, String what) {
        return call.timeout(timeout, Mono.error(() -> new NfsRdmaException("no reply to " + what + " within "
                + seconds(timeout))));
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }

    /** Closes the connection and waits until it has ended, so that no RDMA Write can land in a buffer after. */
    @Override
    public void close() {
        connection.dispose();
        try {
            connection.onDispose().block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            // it ends anyway; nothing more to wait for
        }
    }

    /**
     * One READ's outcome.
     *
     * @param offset where it read
     * @param requested octets asked for (the Write chunk's size)
     * @param length octets returned (written into the chunk)
     * @param eof whether the server said the read reached the end of the file
     * @param remotelyInvalidated whether the reply was a Send with Invalidate of the chunk's STag
     * @param fileHandle GETFH's filehandle
     */
    record ReadResult(long offset, int requested, int length, boolean eof, boolean remotelyInvalidated,
            byte[] fileHandle) {}
}
