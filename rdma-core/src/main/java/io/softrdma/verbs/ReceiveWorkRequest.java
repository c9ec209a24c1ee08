package io.softrdma.verbs;

import java.util.List;
import java.util.Objects;

/**
 * A receive buffer posted to a queue pair's receive queue: the next incoming Send (of any Send type) is
 * placed into its scatter list, in posting order (RFC 5040 §5.3, §5.5 rule 10).
 *
 * <p>Thread safety: immutable.
 *
 * @param wrId the caller's identifier, returned in the completion
 * @param sgl where the message goes; each region needs {@link Access#LOCAL_WRITE}
 */
public record ReceiveWorkRequest(long wrId, List<ScatterGatherEntry> sgl) {

    public ReceiveWorkRequest {
        sgl = List.copyOf(Objects.requireNonNull(sgl, "sgl"));
        for (ScatterGatherEntry e : sgl) {
            if (!e.region().access().contains(Access.LOCAL_WRITE)) {
                throw new IllegalArgumentException("a receive buffer needs LOCAL_WRITE access: " + e.region());
            }
        }
    }

    public static ReceiveWorkRequest of(long wrId, ScatterGatherEntry... sgl) {
        return new ReceiveWorkRequest(wrId, List.of(sgl));
    }

    /** Octets the buffer can take. */
    public long capacity() {
        long total = 0;
        // Indexed: called per message, and a list iterator is an allocation the JIT does not always remove.
        for (int i = 0; i < sgl.size(); i++) {
            total += sgl.get(i).length();
        }
        return total;
    }
}
