package io.softrdma.samples.nfsrdma;

import java.util.Map;

/**
 * The numbers of NFS version 4.0 (RFC 7530, XDR in RFC 7531) this sample uses: the RPC program, its procedures,
 * the COMPOUND operations, the attributes, the special stateids and the {@code nfsstat4} codes with their names.
 *
 * <p>Thread safety: constants only.
 */
public final class Nfs4 {
    /** The ONC RPC program number of NFS. */
    public static final int PROGRAM = 100003;
    /** NFS version 4 (minor version 0 in the COMPOUND). */
    public static final int VERSION = 4;
    /** {@code NFSPROC4_NULL}. */
    public static final int PROC_NULL = 0;
    /** {@code NFSPROC4_COMPOUND}. */
    public static final int PROC_COMPOUND = 1;
    /** The minor version this sample speaks: NFSv4.0, which needs no session (EXCHANGE_ID, CREATE_SESSION). */
    public static final int MINOR_VERSION = 0;

    /** {@code nfs_opnum4} values (RFC 7531). */
    public static final int OP_CLOSE = 4;
    public static final int OP_COMMIT = 5;
    public static final int OP_GETATTR = 9;
    public static final int OP_GETFH = 10;
    public static final int OP_LOOKUP = 15;
    public static final int OP_OPEN = 18;
    public static final int OP_OPEN_CONFIRM = 20;
    public static final int OP_PUTFH = 22;
    public static final int OP_PUTROOTFH = 24;
    public static final int OP_READ = 25;
    public static final int OP_READDIR = 26;
    public static final int OP_SETCLIENTID = 35;
    public static final int OP_SETCLIENTID_CONFIRM = 36;
    public static final int OP_WRITE = 38;

    /** {@code OPEN4_SHARE_ACCESS_WRITE}, {@code OPEN4_SHARE_DENY_NONE} (RFC 7530 §16.16). */
    public static final int OPEN4_SHARE_ACCESS_WRITE = 2;
    public static final int OPEN4_SHARE_DENY_NONE = 0;
    /** {@code opentype4}: OPEN4_CREATE; {@code createmode4}: UNCHECKED4; {@code open_claim_type4}: CLAIM_NULL. */
    public static final int OPEN4_CREATE = 1;
    public static final int UNCHECKED4 = 0;
    public static final int CLAIM_NULL = 0;
    /** {@code OPEN4_RESULT_CONFIRM}: the open-owner is new and the OPEN must be confirmed (RFC 7530 §16.18). */
    public static final int OPEN4_RESULT_CONFIRM = 2;
    /** {@code open_delegation_type4}. */
    public static final int OPEN_DELEGATE_NONE = 0;
    public static final int OPEN_DELEGATE_READ = 1;
    public static final int OPEN_DELEGATE_WRITE = 2;
    /** {@code stable_how4}: the data may stay in the server's memory until COMMIT; or reach stable storage now. */
    public static final int UNSTABLE4 = 0;
    public static final int DATA_SYNC4 = 1;
    public static final int FILE_SYNC4 = 2;
    /** {@code NFS4_VERIFIER_SIZE}. */
    public static final int VERIFIER_LENGTH = 8;

    /** Attribute numbers ({@code FATTR4_*}), bits of the GETATTR bitmap. */
    public static final int FATTR4_TYPE = 1;
    public static final int FATTR4_SIZE = 4;
    /** {@code FATTR4_MODE}: bit 1 of the bitmap's second word. */
    public static final int FATTR4_MODE = 33;

    /** {@code nfs_ftype4}: a regular file, a directory. */
    public static final int NF4REG = 1;
    public static final int NF4DIR = 2;
    public static final int NF4BLK = 3;
    public static final int NF4CHR = 4;
    public static final int NF4LNK = 5;

    /** The length of a {@code stateid4}: a 4-octet seqid and 12 octets of "other". */
    public static final int STATEID_LENGTH = 16;
    /** {@code NFS4_FHSIZE}: a filehandle has at most 128 octets. */
    public static final int FHSIZE = 128;

    public static final int NFS4_OK = 0;
    public static final int NFS4ERR_PERM = 1;
    public static final int NFS4ERR_NOENT = 2;
    public static final int NFS4ERR_IO = 5;
    public static final int NFS4ERR_ACCESS = 13;
    public static final int NFS4ERR_NOTDIR = 20;
    public static final int NFS4ERR_ISDIR = 21;
    public static final int NFS4ERR_INVAL = 22;
    public static final int NFS4ERR_FBIG = 27;
    public static final int NFS4ERR_NAMETOOLONG = 63;
    public static final int NFS4ERR_NOSPC = 28;
    public static final int NFS4ERR_ROFS = 30;
    public static final int NFS4ERR_STALE = 70;
    public static final int NFS4ERR_BADHANDLE = 10001;
    public static final int NFS4ERR_NOTSUPP = 10004;
    public static final int NFS4ERR_SERVERFAULT = 10006;
    public static final int NFS4ERR_DELAY = 10008;
    public static final int NFS4ERR_GRACE = 10013;
    public static final int NFS4ERR_WRONGSEC = 10016;
    public static final int NFS4ERR_RESOURCE = 10018;
    public static final int NFS4ERR_NOFILEHANDLE = 10020;
    public static final int NFS4ERR_MINOR_VERS_MISMATCH = 10021;
    public static final int NFS4ERR_CLID_INUSE = 10017;
    public static final int NFS4ERR_STALE_CLIENTID = 10022;
    public static final int NFS4ERR_BAD_STATEID = 10025;
    public static final int NFS4ERR_BAD_SEQID = 10026;
    public static final int NFS4ERR_BADXDR = 10036;
    public static final int NFS4ERR_OP_ILLEGAL = 10044;

    /** Every {@code nfsstat4} of RFC 7531 (NFSv4.0). */
    private static final Map<Integer, String> STATUS_NAMES = Map.ofEntries(
            Map.entry(0, "NFS4_OK"), Map.entry(1, "NFS4ERR_PERM"), Map.entry(2, "NFS4ERR_NOENT"),
            Map.entry(5, "NFS4ERR_IO"), Map.entry(6, "NFS4ERR_NXIO"), Map.entry(13, "NFS4ERR_ACCESS"),
            Map.entry(17, "NFS4ERR_EXIST"), Map.entry(18, "NFS4ERR_XDEV"), Map.entry(20, "NFS4ERR_NOTDIR"),
            Map.entry(21, "NFS4ERR_ISDIR"), Map.entry(22, "NFS4ERR_INVAL"), Map.entry(27, "NFS4ERR_FBIG"),
            Map.entry(28, "NFS4ERR_NOSPC"), Map.entry(30, "NFS4ERR_ROFS"), Map.entry(31, "NFS4ERR_MLINK"),
            Map.entry(63, "NFS4ERR_NAMETOOLONG"), Map.entry(66, "NFS4ERR_NOTEMPTY"), Map.entry(69, "NFS4ERR_DQUOT"),
            Map.entry(70, "NFS4ERR_STALE"), Map.entry(10001, "NFS4ERR_BADHANDLE"),
            Map.entry(10003, "NFS4ERR_BAD_COOKIE"), Map.entry(10004, "NFS4ERR_NOTSUPP"),
            Map.entry(10005, "NFS4ERR_TOOSMALL"), Map.entry(10006, "NFS4ERR_SERVERFAULT"),
            Map.entry(10007, "NFS4ERR_BADTYPE"), Map.entry(10008, "NFS4ERR_DELAY"), Map.entry(10009, "NFS4ERR_SAME"),
            Map.entry(10010, "NFS4ERR_DENIED"), Map.entry(10011, "NFS4ERR_EXPIRED"),
            Map.entry(10012, "NFS4ERR_LOCKED"), Map.entry(10013, "NFS4ERR_GRACE"),
            Map.entry(10014, "NFS4ERR_FHEXPIRED"), Map.entry(10015, "NFS4ERR_SHARE_DENIED"),
            Map.entry(10016, "NFS4ERR_WRONGSEC"), Map.entry(10017, "NFS4ERR_CLID_INUSE"),
            Map.entry(10018, "NFS4ERR_RESOURCE"), Map.entry(10019, "NFS4ERR_MOVED"),
            Map.entry(10020, "NFS4ERR_NOFILEHANDLE"), Map.entry(10021, "NFS4ERR_MINOR_VERS_MISMATCH"),
            Map.entry(10022, "NFS4ERR_STALE_CLIENTID"), Map.entry(10023, "NFS4ERR_STALE_STATEID"),
            Map.entry(10024, "NFS4ERR_OLD_STATEID"), Map.entry(10025, "NFS4ERR_BAD_STATEID"),
            Map.entry(10026, "NFS4ERR_BAD_SEQID"), Map.entry(10027, "NFS4ERR_NOT_SAME"),
            Map.entry(10028, "NFS4ERR_LOCK_RANGE"), Map.entry(10029, "NFS4ERR_SYMLINK"),
            Map.entry(10030, "NFS4ERR_RESTOREFH"), Map.entry(10031, "NFS4ERR_LEASE_MOVED"),
            Map.entry(10032, "NFS4ERR_ATTRNOTSUPP"), Map.entry(10033, "NFS4ERR_NO_GRACE"),
            Map.entry(10034, "NFS4ERR_RECLAIM_BAD"), Map.entry(10035, "NFS4ERR_RECLAIM_CONFLICT"),
            Map.entry(10036, "NFS4ERR_BADXDR"), Map.entry(10037, "NFS4ERR_LOCKS_HELD"),
            Map.entry(10038, "NFS4ERR_OPENMODE"), Map.entry(10039, "NFS4ERR_BADOWNER"),
            Map.entry(10040, "NFS4ERR_BADCHAR"), Map.entry(10041, "NFS4ERR_BADNAME"),
            Map.entry(10042, "NFS4ERR_BAD_RANGE"), Map.entry(10043, "NFS4ERR_LOCK_NOTSUPP"),
            Map.entry(10044, "NFS4ERR_OP_ILLEGAL"), Map.entry(10045, "NFS4ERR_DEADLOCK"),
            Map.entry(10046, "NFS4ERR_FILE_OPEN"), Map.entry(10047, "NFS4ERR_ADMIN_REVOKED"),
            Map.entry(10048, "NFS4ERR_CB_PATH_DOWN"));

    private static final Map<Integer, String> OP_NAMES = Map.ofEntries(Map.entry(OP_CLOSE, "CLOSE"),
            Map.entry(OP_COMMIT, "COMMIT"), Map.entry(OP_GETATTR, "GETATTR"), Map.entry(OP_GETFH, "GETFH"),
            Map.entry(OP_LOOKUP, "LOOKUP"), Map.entry(OP_OPEN, "OPEN"), Map.entry(OP_OPEN_CONFIRM, "OPEN_CONFIRM"),
            Map.entry(OP_PUTFH, "PUTFH"), Map.entry(OP_PUTROOTFH, "PUTROOTFH"), Map.entry(OP_READ, "READ"),
            Map.entry(OP_READDIR, "READDIR"), Map.entry(OP_SETCLIENTID, "SETCLIENTID"),
            Map.entry(OP_SETCLIENTID_CONFIRM, "SETCLIENTID_CONFIRM"), Map.entry(OP_WRITE, "WRITE"));

    private Nfs4() {
    }

    /** The name of an {@code nfsstat4}, such as {@code NFS4ERR_GRACE}; an unknown one is {@code nfsstat4 N}. */
    public static String statusName(int status) {
        String name = STATUS_NAMES.get(status);
        return name != null ? name : "nfsstat4 " + Integer.toUnsignedString(status);
    }

    /** The name of an operation, such as {@code READ}; an unknown one is {@code op N}. */
    public static String opName(int op) {
        String name = OP_NAMES.get(op);
        return name != null ? name : "op " + op;
    }

    /** The all-zeros "anonymous" stateid (RFC 7530 §9.1.4.3): refused with NFS4ERR_GRACE in the grace period. */
    public static byte[] anonymousStateid() {
        return new byte[STATEID_LENGTH];
    }

    /** The all-ones "READ bypass" stateid (RFC 7530 §9.1.4.3): READ is allowed with it in the grace period. */
    public static byte[] readBypassStateid() {
        byte[] s = new byte[STATEID_LENGTH];
        java.util.Arrays.fill(s, (byte) 0xff);
        return s;
    }
}
