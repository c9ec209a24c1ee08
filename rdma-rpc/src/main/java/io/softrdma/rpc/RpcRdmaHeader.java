package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The RPC-over-RDMA version 1 transport header (RFC 8166 §4.2, {@code struct rdma_msg}) that starts every RDMA
 * Send: the XID, the version, the credit value (requested by a requester, granted by a responder), the procedure,
 * and for {@code RDMA_MSG} and {@code RDMA_NOMSG} the Read list, the Write list and the Reply chunk; for
 * {@code RDMA_ERROR} the error.
 *
 * <pre>
 *  rdma_xid | rdma_vers | rdma_credit | rdma_proc |
 *    read list:  { 1 | position | handle | length | offset(64) } ... 0
 *    write list: { 1 | count | { handle | length | offset(64) } x count } ... 0
 *    reply chunk: 0 | 1 | count | { handle | length | offset(64) } x count
 *  or RDMA_ERROR: ERR_VERS(1) | low | high   or   ERR_CHUNK(2)
 * </pre>
 *
 * Example (the NULL call of ../shared/interop/nfs-rdma): {@code 4e554c4c 00000001 00000020 00000000 00000000
 * 00000000 00000000} is XID 0x4e554c4c, version 1, 32 credits asked, RDMA_MSG, three empty lists.
 *
 * <p>Thread safety: immutable.
 *
 * @param xid the RPC message's XID, echoed by the reply
 * @param version {@link #VERSION_1}; a peer's other value is kept so that an ERR_VERS answer can be made
 * @param credits asked for (in a call) or granted (in a reply), RFC 8166 §3.3.1
 * @param procedure what follows
 * @param readList chunks the responder RDMA-Reads (calls only)
 * @param writeList chunks the responder RDMA-Writes result data items into
 * @param replyChunk where the responder RDMA-Writes a reply too large to send, or null
 * @param error for {@code RDMA_ERROR}, else null
 */
public record RpcRdmaHeader(int xid, int version, int credits, RpcRdmaProcedure procedure, List<ReadSegment> readList,
        List<WriteChunk> writeList, WriteChunk replyChunk, RpcRdmaError error) {

    public static final int VERSION_1 = 1;
    /** The fixed part: XID, version, credits, procedure. */
    public static final int FIXED_LENGTH = 16;
    /** A header with three empty lists: 28 octets. */
    public static final int MIN_MSG_LENGTH = FIXED_LENGTH + 12;
    /** Bounds on what a peer may list, so that a hostile header costs little (Linux allows far fewer). */
    public static final int MAX_READ_SEGMENTS = 64;
    public static final int MAX_WRITE_CHUNKS = 16;
    public static final int MAX_SEGMENTS_PER_CHUNK = 64;

    public RpcRdmaHeader {
        Objects.requireNonNull(procedure, "procedure");
        readList = List.copyOf(readList);
        writeList = List.copyOf(writeList);
        if ((procedure == RpcRdmaProcedure.RDMA_ERROR) != (error != null)) {
            throw new IllegalArgumentException("an RDMA_ERROR header, and only one, carries an error");
        }
    }

    /** {@code RDMA_MSG}: the RPC message follows this header in the same Send. */
    public static RpcRdmaHeader message(int xid, int credits, List<ReadSegment> reads, List<WriteChunk> writes,
            WriteChunk replyChunk) {
        return new RpcRdmaHeader(xid, VERSION_1, credits, RpcRdmaProcedure.RDMA_MSG, reads, writes, replyChunk, null);
    }

    /** {@code RDMA_NOMSG}: the RPC message is in a position-zero Read chunk (a call) or the Reply chunk (a reply). */
    public static RpcRdmaHeader noMessage(int xid, int credits, List<ReadSegment> reads, List<WriteChunk> writes,
            WriteChunk replyChunk) {
        return new RpcRdmaHeader(xid, VERSION_1, credits, RpcRdmaProcedure.RDMA_NOMSG, reads, writes, replyChunk,
                null);
    }

    /** {@code RDMA_ERROR} (RFC 8166 §4.5); {@code version} is echoed as Linux does. */
    public static RpcRdmaHeader error(int xid, int version, int credits, RpcRdmaError error) {
        return new RpcRdmaHeader(xid, version, credits, RpcRdmaProcedure.RDMA_ERROR, List.of(), List.of(), null,
                error);
    }

    /** Octets this header takes on the wire. */
    public int encodedLength() {
        int n = FIXED_LENGTH;
        if (procedure == RpcRdmaProcedure.RDMA_ERROR) {
            return n + (error.code() == RpcRdmaError.ERR_VERS ? 12 : 4);
        }
        n += 4 + readList.size() * (4 + ReadSegment.LENGTH);
        n += 4;
        for (WriteChunk c : writeList) {
            n += 8 + c.segments().size() * RdmaSegment.LENGTH;
        }
        n += 4 + (replyChunk == null ? 0 : 4 + replyChunk.segments().size() * RdmaSegment.LENGTH);
        return n;
    }

    public void encode(ByteBuf out) {
        out.writeInt(xid);
        out.writeInt(version);
        out.writeInt(credits);
        out.writeInt(procedure.code());
        if (procedure == RpcRdmaProcedure.RDMA_ERROR) {
            out.writeInt(error.code());
            if (error.code() == RpcRdmaError.ERR_VERS) {
                out.writeInt(error.low());
                out.writeInt(error.high());
            }
            return;
        }
        for (ReadSegment r : readList) {
            out.writeInt(1);
            out.writeInt(r.position());
            r.segment().encode(out);
        }
        out.writeInt(0);
        for (WriteChunk c : writeList) {
            out.writeInt(1);
            encodeChunk(out, c);
        }
        out.writeInt(0);
        if (replyChunk == null) {
            out.writeInt(0);
        } else {
            out.writeInt(1);
            encodeChunk(out, replyChunk);
        }
    }

    private static void encodeChunk(ByteBuf out, WriteChunk c) {
        out.writeInt(c.segments().size());
        for (RdmaSegment s : c.segments()) {
            s.encode(out);
        }
    }

    /**
     * Reads a header from {@code in}, leaving its reader index on the RPC message that follows (if any). A version
     * other than 1 is returned with empty lists and its body unread: its layout is unknown (RFC 8166 §4.2.1).
     *
     * @throws RpcRdmaProtocolException if the header is truncated, names an unknown procedure or error, or lists
     *     more than this implementation accepts
     */
    public static RpcRdmaHeader decode(ByteBuf in) {
        Xdr.require(in, FIXED_LENGTH, "RPC-over-RDMA header");
        int xid = in.readInt();
        int version = in.readInt();
        int credits = in.readInt();
        int proc = in.readInt();
        RpcRdmaProcedure procedure = RpcRdmaProcedure.fromCode(proc);
        if (version != VERSION_1) {
            return new RpcRdmaHeader(xid, version, credits, procedure != null ? procedure : RpcRdmaProcedure.RDMA_MSG,
                    List.of(), List.of(), null, procedure == RpcRdmaProcedure.RDMA_ERROR ? decodeError(in) : null);
        }
        if (procedure == null) {
            throw new RpcRdmaProtocolException("unknown rdma_proc " + Integer.toUnsignedString(proc)
                    + " (RFC 8166 §4.2.2: 0 RDMA_MSG, 1 RDMA_NOMSG, 4 RDMA_ERROR)");
        }
        switch (procedure) {
            case RDMA_ERROR -> {
                return error(xid, version, credits, decodeError(in));
            }
            case RDMA_MSGP, RDMA_DONE -> throw new RpcRdmaProtocolException(procedure
                    + " is not used in RPC-over-RDMA version 1 (RFC 8166 §4.2.4)");
            default -> {
            }
        }
        List<ReadSegment> reads = new ArrayList<>();
        while (Xdr.readBoolean(in, "read list discriminator")) {
            if (reads.size() == MAX_READ_SEGMENTS) {
                throw new RpcRdmaProtocolException("more than " + MAX_READ_SEGMENTS + " Read segments");
            }
            int position = Xdr.readInt(in, "read segment position");
            reads.add(new ReadSegment(position, RdmaSegment.decode(in)));
        }
        List<WriteChunk> writes = new ArrayList<>();
        while (Xdr.readBoolean(in, "write list discriminator")) {
            if (writes.size() == MAX_WRITE_CHUNKS) {
                throw new RpcRdmaProtocolException("more than " + MAX_WRITE_CHUNKS + " Write chunks");
            }
            writes.add(decodeChunk(in, "Write chunk"));
        }
        WriteChunk reply = Xdr.readBoolean(in, "reply chunk discriminator") ? decodeChunk(in, "Reply chunk") : null;
        return new RpcRdmaHeader(xid, version, credits, procedure, reads, writes, reply, null);
    }

    private static WriteChunk decodeChunk(ByteBuf in, String what) {
        long count = Xdr.readUnsignedInt(in, what + " segment count");
        if (count == 0 || count > MAX_SEGMENTS_PER_CHUNK) {
            throw new RpcRdmaProtocolException(what + " of " + count + " segments (1 to " + MAX_SEGMENTS_PER_CHUNK
                    + " accepted)");
        }
        List<RdmaSegment> segments = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            segments.add(RdmaSegment.decode(in));
        }
        return new WriteChunk(segments);
    }

    private static RpcRdmaError decodeError(ByteBuf in) {
        int code = Xdr.readInt(in, "rdma_err");
        return switch (code) {
            case RpcRdmaError.ERR_VERS -> new RpcRdmaError(code, Xdr.readInt(in, "rdma_vers_low"),
                    Xdr.readInt(in, "rdma_vers_high"));
            case RpcRdmaError.ERR_CHUNK -> new RpcRdmaError(code, 0, 0);
            default -> throw new RpcRdmaProtocolException("unknown rdma_err " + Integer.toUnsignedString(code)
                    + " (RFC 8166 §4.2.3: 1 ERR_VERS, 2 ERR_CHUNK)");
        };
    }
}
