package io.softrdma.verbs;

/**
 * What a peer needs to reach a registered buffer: its STag, the tagged offset of its first octet and
 * its length in octets (RFC 5040 §2.3 "Advertisement"). Obtained from {@link MemoryRegion#advertise()}
 * and sent to the peer by the application; used in RDMA Write and Read work requests.
 *
 * <p>Thread safety: immutable.
 *
 * @param stag the Steering Tag
 * @param taggedOffset the tagged offset of the first octet
 * @param length octets
 */
public record RemoteMemory(int stag, long taggedOffset, long length) {

    public RemoteMemory {
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " must not be negative");
        }
    }

    /** The part of this buffer that starts {@code offset} octets in and is {@code length} long. */
    public RemoteMemory slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > this.length) {
            throw new IllegalArgumentException("slice [" + offset + ", " + (offset + length)
                    + ") is outside the advertised " + this.length + " octets");
        }
        return new RemoteMemory(stag, taggedOffset + offset, length);
    }

    @Override
    public String toString() {
        return String.format("RemoteMemory{STag=0x%08x TO=0x%x length=%d}", stag, taggedOffset, length);
    }
}
