package io.softrdma.samples.nfsrdma;

import io.netty.buffer.ByteBuf;
import io.softrdma.rpc.Xdr;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Encodes the arguments of the NFSv4.0 COMPOUND procedure ({@code COMPOUND4args}, RFC 7531) this sample sends: an
 * empty tag, minor version 0 and the operations
 *
 * <pre>
 *   PUTROOTFH ; LOOKUP name1 ; LOOKUP name2 ; ... ; GETFH ; READ (stateid, offset, count)
 *   PUTROOTFH ; LOOKUP name1 ; LOOKUP name2 ; ... ; GETFH ; GETATTR {type, size}
 *   PUTROOTFH ; LOOKUP name1 ; ... ; READDIR (cookie, verifier, dircount, maxcount, {type, size})
 *   SETCLIENTID (verifier, id, callback)          SETCLIENTID_CONFIRM (clientid, verifier)
 *   PUTROOTFH ; LOOKUP dir1 ; ... ; OPEN (create, write access, CLAIM_NULL name) ; GETFH
 *   PUTFH fh ; OPEN_CONFIRM (stateid, seqid)      PUTFH fh ; WRITE (stateid, offset, stable, data)
 *   PUTFH fh ; COMMIT (offset, count)             PUTFH fh ; CLOSE (seqid, stateid) ; GETATTR {type, size}
 * </pre>
 *
 * WRITE's data is DDP-eligible (RFC 8267 §4.1): {@link #encodeWrite} writes everything but the data octets and
 * returns where they belong, so that the connection can carry them in a Read chunk (RFC 8166 §3.4.5); WRITE is the
 * COMPOUND's last operation, so nothing follows the chunk's position inline.
 *
 * The RPC call header (with its credential) is not part of it: {@code RpcRdmaConnection} writes that.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class Nfs4Compound {
    /** {@code NFS4_MAXNAMLEN}-like bound of Linux: a path component has at most 255 octets. */
    public static final int MAX_NAME = 255;

    private Nfs4Compound() {
    }

    /**
     * The components of an absolute or relative path below the server's root (its NFSv4 pseudo-root): {@code
     * "/data.bin"} and {@code "data.bin"} are both {@code [data.bin]}, {@code "/"} is none.
     *
     * @throws IllegalArgumentException for a {@code "."} or {@code ".."} component (NFSv4 LOOKUP takes neither), an
     *         empty path, or a component longer than 255 octets
     */
    public static List<String> pathComponents(String path) {
        Objects.requireNonNull(path, "path");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("the path is empty: give it from the export's root, e.g. /data.bin");
        }
        List<String> components = new ArrayList<>();
        for (String c : path.split("/")) {
            if (c.isEmpty()) {
                continue;
            }
            if (c.equals(".") || c.equals("..")) {
                throw new IllegalArgumentException("path " + path + ": the component '" + c + "' cannot be looked up"
                        + " (NFSv4 LOOKUP takes neither . nor ..); give the path from the export's root");
            }
            if (c.getBytes(StandardCharsets.UTF_8).length > MAX_NAME) {
                throw new IllegalArgumentException("path " + path + ": a component is longer than " + MAX_NAME
                        + " octets");
            }
            components.add(c);
        }
        return List.copyOf(components);
    }

    /** {@code PUTROOTFH; LOOKUP...; GETFH; READ(stateid, offset, count)}. */
    public static void encodeRead(ByteBuf out, List<String> path, byte[] stateid, long offset, int count) {
        if (stateid.length != Nfs4.STATEID_LENGTH) {
            throw new IllegalArgumentException("a stateid4 has 16 octets, not " + stateid.length);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset " + offset + " is negative");
        }
        header(out, path.size() + 3);
        lookups(out, path);
        out.writeInt(Nfs4.OP_READ);
        out.writeBytes(stateid); // seqid (4 octets) and other (12): the special stateids are all zeros or all ones
        out.writeLong(offset);
        out.writeInt(count);
    }

    /** {@code PUTROOTFH; LOOKUP...; GETFH; GETATTR {type, size}}: what is there and how long it is. */
    public static void encodeGetattr(ByteBuf out, List<String> path) {
        header(out, path.size() + 3);
        lookups(out, path);
        out.writeInt(Nfs4.OP_GETATTR);
        out.writeInt(1); // bitmap4: one word
        out.writeInt(1 << Nfs4.FATTR4_TYPE | 1 << Nfs4.FATTR4_SIZE);
    }

    /**
     * {@code PUTROOTFH; LOOKUP...; READDIR(cookie, cookieverf, dircount, maxcount, {type, size})}: one batch of a
     * directory's entries (RFC 7530 §16.24).
     */
    public static void encodeReaddir(ByteBuf out, List<String> path, long cookie, byte[] cookieVerifier,
            int dircount, int maxcount) {
        fixed(cookieVerifier, Nfs4.VERIFIER_LENGTH, "a cookie verifier");
        header(out, path.size() + 2);
        out.writeInt(Nfs4.OP_PUTROOTFH);
        for (String name : path) {
            out.writeInt(Nfs4.OP_LOOKUP);
            Xdr.writeString(out, name);
        }
        out.writeInt(Nfs4.OP_READDIR);
        out.writeLong(cookie);
        out.writeBytes(cookieVerifier);
        out.writeInt(dircount);
        out.writeInt(maxcount);
        out.writeInt(1); // bitmap4: one word
        out.writeInt(1 << Nfs4.FATTR4_TYPE | 1 << Nfs4.FATTR4_SIZE);
    }

    /**
     * {@code SETCLIENTID} (RFC 7530 §16.33): the client's boot verifier and unique id, and a callback this client
     * does not serve. Netid {@code "rdma"} is one Linux nfsd takes no callback path from, so it grants no
     * delegations (it would recall them over that path), as for its own NFSv4.0 clients over RDMA.
     */
    public static void encodeSetClientId(ByteBuf out, byte[] verifier, String id, int callbackIdent) {
        fixed(verifier, Nfs4.VERIFIER_LENGTH, "a client verifier");
        header(out, 1);
        out.writeInt(Nfs4.OP_SETCLIENTID);
        out.writeBytes(verifier);
        Xdr.writeString(out, id); // nfs_client_id4.id: opaque<1024>
        out.writeInt(0x40000000); // cb_program: a transient program number; never called
        Xdr.writeString(out, "rdma"); // r_netid
        Xdr.writeString(out, "0.0.0.0.0.0"); // r_addr: no callback service
        out.writeInt(callbackIdent);
    }

    /** {@code SETCLIENTID_CONFIRM (clientid, verifier)} (RFC 7530 §16.34). */
    public static void encodeSetClientIdConfirm(ByteBuf out, long clientId, byte[] confirm) {
        fixed(confirm, Nfs4.VERIFIER_LENGTH, "a SETCLIENTID confirm verifier");
        header(out, 1);
        out.writeInt(Nfs4.OP_SETCLIENTID_CONFIRM);
        out.writeLong(clientId);
        out.writeBytes(confirm);
    }

    /**
     * {@code PUTROOTFH; LOOKUP dir...; OPEN; GETFH} (RFC 7530 §16.16): opens {@code name} in the directory for
     * writing, creating it if need be (UNCHECKED4), truncated to size 0 and with mode {@code mode}; share deny
     * none; claim CLAIM_NULL.
     */
    public static void encodeOpenCreate(ByteBuf out, List<String> directory, String name, int seqid, long clientId,
            byte[] owner, int mode) {
        if (name.isEmpty() || name.contains("/")) {
            throw new IllegalArgumentException("a file name, not '" + name + "'");
        }
        header(out, directory.size() + 3);
        out.writeInt(Nfs4.OP_PUTROOTFH);
        for (String dir : directory) {
            out.writeInt(Nfs4.OP_LOOKUP);
            Xdr.writeString(out, dir);
        }
        out.writeInt(Nfs4.OP_OPEN);
        out.writeInt(seqid);
        out.writeInt(Nfs4.OPEN4_SHARE_ACCESS_WRITE);
        out.writeInt(Nfs4.OPEN4_SHARE_DENY_NONE);
        out.writeLong(clientId); // open_owner4.clientid
        Xdr.writeOpaque(out, owner); // open_owner4.owner
        out.writeInt(Nfs4.OPEN4_CREATE);
        out.writeInt(Nfs4.UNCHECKED4);
        // fattr4 createattrs: size 0 (truncates a file that is there) and the mode; values in bit order.
        out.writeInt(2);
        out.writeInt(1 << Nfs4.FATTR4_SIZE);
        out.writeInt(1 << (Nfs4.FATTR4_MODE - 32));
        out.writeInt(12); // attrlist4: size (8) + mode (4)
        out.writeLong(0);
        out.writeInt(mode);
        out.writeInt(Nfs4.CLAIM_NULL);
        Xdr.writeString(out, name);
        out.writeInt(Nfs4.OP_GETFH);
    }

    /** {@code PUTFH fh; OPEN_CONFIRM (stateid, seqid)} (RFC 7530 §16.18). */
    public static void encodeOpenConfirm(ByteBuf out, byte[] fh, byte[] stateid, int seqid) {
        fixed(stateid, Nfs4.STATEID_LENGTH, "a stateid4");
        header(out, 2);
        putfh(out, fh);
        out.writeInt(Nfs4.OP_OPEN_CONFIRM);
        out.writeBytes(stateid);
        out.writeInt(seqid);
    }

    /**
     * {@code PUTFH fh; WRITE (stateid, offset, stable, data)} (RFC 7530 §16.36), up to and including the data's
     * length word: the data octets and their XDR roundup are left to the caller.
     *
     * @return the position of the data octets in {@code out}'s readable octets: where a Read chunk carrying them
     *     belongs (RFC 8166 §3.4.5), or where to append them (and their padding) to send them inline
     */
    public static int encodeWrite(ByteBuf out, byte[] fh, byte[] stateid, long offset, int stable, int length) {
        fixed(stateid, Nfs4.STATEID_LENGTH, "a stateid4");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("offset " + offset + " and length " + length + " must not be negative");
        }
        header(out, 2);
        putfh(out, fh);
        out.writeInt(Nfs4.OP_WRITE);
        out.writeBytes(stateid);
        out.writeLong(offset);
        out.writeInt(stable);
        out.writeInt(length);
        return out.writerIndex() - out.readerIndex();
    }

    /** {@code PUTFH fh; COMMIT (offset, count)} (RFC 7530 §16.3); count 0 means to the end of the file. */
    public static void encodeCommit(ByteBuf out, byte[] fh, long offset, int count) {
        header(out, 2);
        putfh(out, fh);
        out.writeInt(Nfs4.OP_COMMIT);
        out.writeLong(offset);
        out.writeInt(count);
    }

    /** {@code PUTFH fh; CLOSE (seqid, stateid); GETATTR {type, size}} (RFC 7530 §16.2, §16.7). */
    public static void encodeClose(ByteBuf out, byte[] fh, int seqid, byte[] stateid) {
        fixed(stateid, Nfs4.STATEID_LENGTH, "a stateid4");
        header(out, 3);
        putfh(out, fh);
        out.writeInt(Nfs4.OP_CLOSE);
        out.writeInt(seqid);
        out.writeBytes(stateid);
        out.writeInt(Nfs4.OP_GETATTR);
        out.writeInt(1);
        out.writeInt(1 << Nfs4.FATTR4_TYPE | 1 << Nfs4.FATTR4_SIZE);
    }

    private static void putfh(ByteBuf out, byte[] fh) {
        if (fh == null || fh.length == 0 || fh.length > Nfs4.FHSIZE) {
            throw new IllegalArgumentException("a filehandle has 1 to " + Nfs4.FHSIZE + " octets");
        }
        out.writeInt(Nfs4.OP_PUTFH);
        Xdr.writeOpaque(out, fh);
    }

    private static void fixed(byte[] b, int length, String what) {
        if (b == null || b.length != length) {
            throw new IllegalArgumentException(what + " has " + length + " octets, not "
                    + (b == null ? "none" : b.length));
        }
    }

    private static void header(ByteBuf out, int ops) {
        Xdr.writeOpaque(out, new byte[0]); // tag: none
        out.writeInt(Nfs4.MINOR_VERSION);
        out.writeInt(ops);
    }

    private static void lookups(ByteBuf out, List<String> path) {
        out.writeInt(Nfs4.OP_PUTROOTFH);
        for (String name : path) {
            out.writeInt(Nfs4.OP_LOOKUP);
            Xdr.writeString(out, name); // component4: utf8str_cs
        }
        out.writeInt(Nfs4.OP_GETFH);
    }
}
