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
 * </pre>
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
