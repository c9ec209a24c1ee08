package io.softrdma.samples.nfsrdma;

/**
 * An NFSv4 operation failed: the COMPOUND's status ({@code nfsstat4}), the operation that failed, and a message that
 * names the status (e.g. {@code NFS4ERR_GRACE (10013)}) and says what it means here.
 */
public final class Nfs4Exception extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final int op;

    public Nfs4Exception(String message, int status, int op) {
        super(message);
        this.status = status;
        this.op = op;
    }

    /** The {@code nfsstat4}. */
    public int status() {
        return status;
    }

    /** The operation that failed ({@code nfs_opnum4}). */
    public int op() {
        return op;
    }

    /** {@code NFS4ERR_NAME (code)}. */
    public static String describe(int status) {
        return Nfs4.statusName(status) + " (" + Integer.toUnsignedString(status) + ")";
    }

    /** What a status means for this sample's operations, or "" when there is nothing to add to its name. */
    static String hint(int status, int op) {
        return switch (status) {
            case Nfs4.NFS4ERR_GRACE -> op == Nfs4.OP_OPEN ? "the server is in its grace period after nfsd started"
                    + " (90 s on Linux, longer in a slow VM) and refuses new OPENs until it ends: wait, or raise"
                    + " --grace-wait" : "the server is in its grace period after nfsd started (90 s on Linux, longer"
                    + " in a slow VM), and refuses READ with the anonymous all-zeros stateid until it ends: wait, or"
                    + " use --stateid ones (the READ-bypass stateid, allowed during grace)";
            case Nfs4.NFS4ERR_FBIG -> "the server could not return the READ data: the offset is beyond the largest"
                    + " file it supports, or (Linux svcrdma) the Write chunk offered was shorter than the READ count";
            case Nfs4.NFS4ERR_NOENT -> "no such file or directory";
            case Nfs4.NFS4ERR_ROFS -> "the export is read-only";
            case Nfs4.NFS4ERR_NOSPC -> "the server's file system is full";
            case Nfs4.NFS4ERR_NOTDIR -> "a component before the last is not a directory";
            case Nfs4.NFS4ERR_ISDIR -> "the path names a directory; READ needs a regular file";
            case Nfs4.NFS4ERR_INVAL -> op == Nfs4.OP_READ ? "READ of something that is not a regular file"
                    : "the server found an argument invalid";
            case Nfs4.NFS4ERR_ACCESS, Nfs4.NFS4ERR_PERM -> "the server refused this credential (AUTH_SYS --uid/--gid)"
                    + " for the export; check the export's client list and root squashing";
            case Nfs4.NFS4ERR_WRONGSEC -> "the export needs another security flavor than AUTH_SYS";
            case Nfs4.NFS4ERR_STALE, Nfs4.NFS4ERR_BADHANDLE -> "the filehandle is not (or no longer) valid on the"
                    + " server: was the export changed?";
            case Nfs4.NFS4ERR_NOFILEHANDLE -> "no current filehandle: PUTROOTFH found no NFSv4 root exported to this"
                    + " client's address";
            case Nfs4.NFS4ERR_DELAY, Nfs4.NFS4ERR_RESOURCE -> "the server is busy: try again";
            case Nfs4.NFS4ERR_MINOR_VERS_MISMATCH -> "the server does not serve NFSv4.0 (minor version 0)";
            case Nfs4.NFS4ERR_BAD_STATEID -> "the server does not take this special stateid: try --stateid ones or"
                    + " zero";
            case Nfs4.NFS4ERR_NAMETOOLONG -> "a path component is too long for the server";
            case Nfs4.NFS4ERR_SERVERFAULT, Nfs4.NFS4ERR_IO -> "the server failed (see its kernel log)";
            default -> "";
        };
    }
}
