package io.softrdma.samples.nfsrdma;

import io.netty.buffer.ByteBuf;
import io.softrdma.rpc.RpcRdmaProtocolException;
import io.softrdma.rpc.Xdr;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A decoded NFSv4.0 COMPOUND reply ({@code COMPOUND4res}, RFC 7531): the overall status and each operation's status,
 * with the results of the operations this sample sends: GETFH's filehandle, READ's eof flag and data length,
 * GETATTR's type and size, SETCLIENTID's clientid and confirm verifier, OPEN's stateid and flags, the stateid of
 * OPEN_CONFIRM and CLOSE, WRITE's count, stability and verifier, COMMIT's verifier and READDIR's entries. As RFC
 * 7530 §16.2 says, the results stop at the first operation that failed.
 *
 * <p>READ's data: when the call offered a Write chunk, the server RDMA-Wrote the data there and the inline XDR
 * stream holds only the data's length (RFC 8166 §3.4.5 removes the DDP-eligible data item and its padding); the
 * length is what was written. Without a chunk the data follows inline and is copied out.
 *
 * <p>Thread safety: immutable (the arrays are not copied out; do not change them).
 *
 * @param status the COMPOUND's status: that of the last operation evaluated
 * @param results each operation's opcode and status, in order, up to the first that failed
 * @param fileHandle GETFH's filehandle, or null
 * @param read READ's result, or null
 * @param attributes GETATTR's result, or null
 * @param clientId SETCLIENTID's result, or null
 * @param open OPEN's result, or null
 * @param stateid the stateid OPEN_CONFIRM or CLOSE returned, or null
 * @param write WRITE's result, or null
 * @param commitVerifier COMMIT's write verifier, or null
 * @param directory READDIR's result, or null
 */
public record Nfs4CompoundReply(int status, List<OpResult> results, byte[] fileHandle, Read read,
        Attributes attributes, ClientId clientId, Open open, byte[] stateid, Write write, byte[] commitVerifier,
        Directory directory) {

    /** SETCLIENTID4resok: the clientid and the verifier SETCLIENTID_CONFIRM must echo. */
    public record ClientId(long clientId, byte[] confirm) {}

    /**
     * OPEN4resok, as far as this client needs it.
     *
     * @param stateid the open stateid
     * @param rflags {@link Nfs4#OPEN4_RESULT_CONFIRM} when the OPEN must be confirmed
     * @param delegation the delegation type granted ({@link Nfs4#OPEN_DELEGATE_NONE} for none)
     */
    public record Open(byte[] stateid, int rflags, int delegation) {
        public boolean needsConfirm() {
            return (rflags & Nfs4.OPEN4_RESULT_CONFIRM) != 0;
        }
    }

    /**
     * WRITE4resok.
     *
     * @param count the octets written
     * @param committed how stable they are ({@link Nfs4#UNSTABLE4}, ...)
     * @param verifier the server's write verifier: COMMIT must return the same one, else the data was lost
     */
    public record Write(long count, int committed, byte[] verifier) {}

    /** One READDIR entry: cookie, name, and the type and size asked for. */
    public record Entry(long cookie, String name, Attributes attributes) {}

    /** READDIR4resok: the cookie verifier, the entries of this batch, and whether the directory ends here. */
    public record Directory(byte[] cookieVerifier, List<Entry> entries, boolean eof) {}

    /** One operation's opcode and status. */
    public record OpResult(int op, int status) {
        @Override
        public String toString() {
            return Nfs4.opName(op) + " " + Nfs4.statusName(status);
        }
    }

    /**
     * READ4resok.
     *
     * @param eof whether the read reached the end of the file
     * @param length the octets of data
     * @param inlineData the data when it came inline; null when it went into the Write chunk
     */
    public record Read(boolean eof, long length, byte[] inlineData) {}

    /**
     * The attributes GETATTR returned; -1 for one it did not.
     *
     * @param type {@code nfs_ftype4} ({@link Nfs4#NF4REG}, {@link Nfs4#NF4DIR}, ...)
     * @param size the size in octets
     */
    public record Attributes(int type, long size) {}

    /** Whether every operation succeeded. */
    public boolean ok() {
        return status == Nfs4.NFS4_OK;
    }

    /** The filehandle in hex, or "none". */
    public String fileHandleHex() {
        return fileHandle == null ? "none" : HexFormat.of().formatHex(fileHandle);
    }

    /** The operation that failed, or null. */
    public OpResult failed() {
        for (OpResult r : results) {
            if (r.status() != Nfs4.NFS4_OK) {
                return r;
            }
        }
        return null;
    }

    /**
     * Decodes the results of a COMPOUND that succeeded at the RPC level (what follows {@code accept_stat}), and
     * checks nothing is left over.
     *
     * @param in the results; read to their end
     * @param readDataInChunk whether the call offered a Write chunk for READ's data (then it is not inline)
     * @throws RpcRdmaProtocolException if the results are malformed, truncated, longer than they should be, or hold
     *         the result of an operation this sample does not send
     */
    public static Nfs4CompoundReply decode(ByteBuf in, boolean readDataInChunk) {
        int status = Xdr.readInt(in, "COMPOUND4res status");
        Xdr.readOpaque(in, 1024, "COMPOUND4res tag");
        long count = Xdr.readUnsignedInt(in, "COMPOUND4res resarray count");
        if (count > 1024) {
            throw new RpcRdmaProtocolException("a COMPOUND reply with " + count + " results");
        }
        List<OpResult> results = new ArrayList<>();
        byte[] fh = null;
        Read read = null;
        Attributes attributes = null;
        ClientId clientId = null;
        Open open = null;
        byte[] stateid = null;
        Write write = null;
        byte[] commitVerifier = null;
        Directory directory = null;
        for (int i = 0; i < count; i++) {
            int op = Xdr.readInt(in, "resop");
            int opStatus = Xdr.readInt(in, Nfs4.opName(op) + " status");
            results.add(new OpResult(op, opStatus));
            if (opStatus != Nfs4.NFS4_OK) {
                if (i != count - 1) {
                    throw new RpcRdmaProtocolException(Nfs4.opName(op) + " failed with "
                            + Nfs4Exception.describe(opStatus) + ", yet " + (count - 1 - i) + " results follow it"
                            + " (RFC 7530 §16.2: a COMPOUND stops at the first failure)");
                }
                break;
            }
            switch (op) {
                case Nfs4.OP_PUTROOTFH, Nfs4.OP_LOOKUP, Nfs4.OP_PUTFH, Nfs4.OP_SETCLIENTID_CONFIRM -> {
                    // no results beyond the status
                }
                case Nfs4.OP_SETCLIENTID -> clientId = new ClientId(Xdr.readLong(in, "SETCLIENTID clientid"),
                        fixed(in, Nfs4.VERIFIER_LENGTH, "SETCLIENTID confirm verifier"));
                case Nfs4.OP_OPEN -> open = decodeOpen(in);
                case Nfs4.OP_OPEN_CONFIRM, Nfs4.OP_CLOSE -> stateid = fixed(in, Nfs4.STATEID_LENGTH,
                        Nfs4.opName(op) + " stateid");
                case Nfs4.OP_WRITE -> write = new Write(Xdr.readUnsignedInt(in, "WRITE count"),
                        Xdr.readInt(in, "WRITE committed"), fixed(in, Nfs4.VERIFIER_LENGTH, "WRITE verifier"));
                case Nfs4.OP_COMMIT -> commitVerifier = fixed(in, Nfs4.VERIFIER_LENGTH, "COMMIT verifier");
                case Nfs4.OP_READDIR -> directory = decodeDirectory(in);
                case Nfs4.OP_GETFH -> fh = Xdr.readOpaque(in, Nfs4.FHSIZE, "GETFH filehandle");
                case Nfs4.OP_READ -> read = decodeRead(in, readDataInChunk);
                case Nfs4.OP_GETATTR -> attributes = decodeAttributes(in);
                default -> throw new RpcRdmaProtocolException("a COMPOUND reply with the result of "
                        + Nfs4.opName(op) + ", which this client does not send");
            }
        }
        if (in.isReadable()) {
            throw new RpcRdmaProtocolException(in.readableBytes() + " octets after the last result of the COMPOUND"
                    + " reply" + (read != null && readDataInChunk ? " (READ data inline although a Write chunk was"
                            + " offered?)" : ""));
        }
        OpResult last = results.isEmpty() ? null : results.get(results.size() - 1);
        if (last != null && last.status() != status) {
            throw new RpcRdmaProtocolException("COMPOUND status " + Nfs4Exception.describe(status) + " differs from"
                    + " that of its last operation, " + last);
        }
        return new Nfs4CompoundReply(status, List.copyOf(results), fh, read, attributes, clientId, open, stateid,
                write, commitVerifier, directory);
    }

    private static byte[] fixed(ByteBuf in, int length, String what) {
        if (in.readableBytes() < length) {
            throw new RpcRdmaProtocolException("truncated: " + what + " of " + length + " octets, "
                    + in.readableBytes() + " left");
        }
        byte[] b = new byte[length];
        in.readBytes(b);
        return b;
    }

    /** OPEN4resok (RFC 7531): stateid, change_info4, rflags, attrset, open_delegation4. */
    private static Open decodeOpen(ByteBuf in) {
        byte[] stateid = fixed(in, Nfs4.STATEID_LENGTH, "OPEN stateid");
        Xdr.readBoolean(in, "OPEN cinfo atomic");
        Xdr.readLong(in, "OPEN cinfo before");
        Xdr.readLong(in, "OPEN cinfo after");
        int rflags = Xdr.readInt(in, "OPEN rflags");
        long words = Xdr.readUnsignedInt(in, "OPEN attrset length");
        if (words > 8) {
            throw new RpcRdmaProtocolException("an OPEN attrset of " + words + " words");
        }
        for (int w = 0; w < words; w++) {
            Xdr.readInt(in, "OPEN attrset word");
        }
        int delegation = Xdr.readInt(in, "OPEN delegation type");
        switch (delegation) {
            case Nfs4.OPEN_DELEGATE_NONE -> {
            }
            case Nfs4.OPEN_DELEGATE_READ, Nfs4.OPEN_DELEGATE_WRITE -> {
                fixed(in, Nfs4.STATEID_LENGTH, "delegation stateid");
                Xdr.readBoolean(in, "delegation recall");
                if (delegation == Nfs4.OPEN_DELEGATE_WRITE) {
                    int limitBy = Xdr.readInt(in, "space_limit limitby");
                    switch (limitBy) {
                        case 1 -> Xdr.readLong(in, "space_limit filesize");
                        case 2 -> {
                            Xdr.readInt(in, "space_limit num_blocks");
                            Xdr.readInt(in, "space_limit bytes_per_block");
                        }
                        default -> throw new RpcRdmaProtocolException("a space limit of kind " + limitBy);
                    }
                }
                // nfsace4 permissions: type, flag, access_mask, who
                Xdr.readInt(in, "ace type");
                Xdr.readInt(in, "ace flag");
                Xdr.readInt(in, "ace access_mask");
                Xdr.readOpaque(in, 1024, "ace who");
            }
            default -> throw new RpcRdmaProtocolException("an OPEN delegation of type " + delegation);
        }
        return new Open(stateid, rflags, delegation);
    }

    /** READDIR4resok (RFC 7531): cookieverf, then entries while value_follows, then eof. */
    private static Directory decodeDirectory(ByteBuf in) {
        byte[] verifier = fixed(in, Nfs4.VERIFIER_LENGTH, "READDIR cookie verifier");
        List<Entry> entries = new ArrayList<>();
        while (Xdr.readBoolean(in, "READDIR value_follows")) {
            if (entries.size() == 100_000) {
                throw new RpcRdmaProtocolException("a READDIR reply of more than 100000 entries");
            }
            long cookie = Xdr.readLong(in, "READDIR entry cookie");
            String name = new String(Xdr.readOpaque(in, Nfs4Compound.MAX_NAME, "READDIR entry name"),
                    java.nio.charset.StandardCharsets.UTF_8);
            entries.add(new Entry(cookie, name, decodeAttributes(in)));
        }
        boolean eof = Xdr.readBoolean(in, "READDIR eof");
        return new Directory(verifier, List.copyOf(entries), eof);
    }

    private static Read decodeRead(ByteBuf in, boolean readDataInChunk) {
        boolean eof = Xdr.readBoolean(in, "READ eof");
        long length = Xdr.readUnsignedInt(in, "READ data length");
        if (readDataInChunk) {
            return new Read(eof, length, null);
        }
        if (length > Integer.MAX_VALUE - 3) {
            throw new RpcRdmaProtocolException("READ data of " + length + " octets inline");
        }
        int n = (int) length;
        if (in.readableBytes() < n + Xdr.pad(n)) {
            throw new RpcRdmaProtocolException("truncated: READ data of " + n + " octets inline, "
                    + in.readableBytes() + " left");
        }
        byte[] data = new byte[n];
        in.readBytes(data);
        in.skipBytes(Xdr.pad(n));
        return new Read(eof, length, data);
    }

    private static Attributes decodeAttributes(ByteBuf in) {
        long words = Xdr.readUnsignedInt(in, "GETATTR bitmap4 length");
        if (words > 8) {
            throw new RpcRdmaProtocolException("a GETATTR bitmap of " + words + " words");
        }
        int[] mask = new int[(int) words];
        for (int i = 0; i < mask.length; i++) {
            mask[i] = Xdr.readInt(in, "GETATTR bitmap4 word");
        }
        long valuesLength = Xdr.readUnsignedInt(in, "GETATTR attrlist4 length");
        if (valuesLength > in.readableBytes()) {
            throw new RpcRdmaProtocolException("truncated: GETATTR attrlist4 of " + valuesLength + " octets, "
                    + in.readableBytes() + " left");
        }
        ByteBuf values = in.readSlice((int) valuesLength);
        in.skipBytes(Xdr.pad((int) valuesLength));
        int type = -1;
        long size = -1;
        // The values come in the order of the bits; this client asks only for type (1) and size (4).
        for (int bit = 0; bit < 32 * mask.length; bit++) {
            if ((mask[bit / 32] & 1 << (bit % 32)) == 0) {
                continue;
            }
            switch (bit) {
                case Nfs4.FATTR4_TYPE -> type = Xdr.readInt(values, "fattr4 type");
                case Nfs4.FATTR4_SIZE -> size = Xdr.readLong(values, "fattr4 size");
                default -> throw new RpcRdmaProtocolException("GETATTR returned attribute " + bit
                        + ", which was not asked for");
            }
        }
        if (values.isReadable()) {
            throw new RpcRdmaProtocolException(values.readableBytes() + " octets after the GETATTR attributes");
        }
        return new Attributes(type, size);
    }

    /**
     * The exception for a reply that failed: names the status, the operation, and for LOOKUP the component.
     *
     * @param what what the COMPOUND was for, e.g. {@code "READ /data.bin at offset 0"}
     * @param path the path's components, in the order of the LOOKUPs
     * @return the exception, or null when the reply is OK
     */
    public Nfs4Exception toException(String what, List<String> path) {
        if (ok()) {
            return null;
        }
        OpResult failed = failed();
        int op = failed != null ? failed.op() : -1;
        StringBuilder m = new StringBuilder(what).append(": ");
        if (failed == null) {
            m.append("COMPOUND failed with ").append(Nfs4Exception.describe(status));
        } else {
            m.append(Nfs4.opName(op));
            if (op == Nfs4.OP_LOOKUP) {
                int lookup = 0;
                for (OpResult r : results) {
                    if (r == failed) {
                        break;
                    }
                    if (r.op() == Nfs4.OP_LOOKUP) {
                        lookup++;
                    }
                }
                if (lookup < path.size()) {
                    m.append(" '").append(path.get(lookup)).append("'");
                }
            }
            m.append(" failed with ").append(Nfs4Exception.describe(status));
        }
        String hint = Nfs4Exception.hint(status, op);
        if (!hint.isEmpty()) {
            m.append(": ").append(hint);
        }
        return new Nfs4Exception(m.toString(), status, op);
    }
}
