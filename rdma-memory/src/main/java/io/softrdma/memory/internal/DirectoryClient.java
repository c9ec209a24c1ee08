package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.memory.NoSuchRegionException;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionAccessDeniedException;
import io.softrdma.memory.RegionRevokedException;
import io.softrdma.memory.RemoteMemoryException;
import io.softrdma.reactive.RdmaRemoteException;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.RemoteMemory;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The client's side of the directory (docs/protocol.md, "Memory directory"): each call one request on the session.
 *
 * <p>Thread safety: stateless.
 */
final class DirectoryClient {
    private DirectoryClient() {
    }

    /** A new lease, and why the {@code previous} one ended (UNKNOWN if none was given). */
    record Resolved(ClientLease lease, LeaseEnd previous) {
    }

    static Mono<Resolved> resolve(RdmaSession session, String name, Clock clock, Long previous) {
        return Mono.defer(() -> {
            long sentAt = clock.millis();
            return session.request(Wire.resolve(ByteBufAllocator.DEFAULT, name, previous))
                    .onErrorMap(e -> lost(name, e))
                    .handle((response, sink) -> {
                        RuntimeException failure = failure(name, response);
                        if (failure != null) {
                            sink.error(failure);
                            return;
                        }
                        if (response.readableBytes() < Wire.LEASE_LENGTH) {
                            sink.error(new RemoteMemoryException(name, "the memory server's lease for '" + name
                                    + "' is cut short"));
                            return;
                        }
                        long id = response.readLong();
                        RemoteMemory remote = new RemoteMemory(response.readInt(), response.readLong(),
                                response.readLong());
                        Set<RegionAccess> rights = rights(response.readUnsignedByte());
                        long duration = response.readLong();
                        LeaseEnd previousEnd = LeaseEnd.of(response.readUnsignedByte());
                        sink.next(new Resolved(ClientLease.of(session, id, remote, rights, duration, sentAt),
                                previousEnd));
                    });
        });
    }

    /** Emits the new duration of the lease. */
    static Mono<Long> renew(RdmaSession session, String name, long id) {
        return session.request(Wire.renew(ByteBufAllocator.DEFAULT, id))
                .onErrorMap(e -> lost(name, e))
                .handle((response, sink) -> {
                    RuntimeException failure = failure(name, response);
                    if (failure != null) {
                        sink.error(failure);
                    } else {
                        sink.next(response.readLong());
                    }
                });
    }

    /** Releases a lease; completes once the server has ended it. */
    static Mono<Void> release(RdmaSession session, String name, long id) {
        return session.request(Wire.release(ByteBufAllocator.DEFAULT, id))
                .onErrorMap(e -> lost(name, e))
                .handle((response, sink) -> {
                    RuntimeException failure = failure(name, response);
                    if (failure != null) {
                        sink.error(failure);
                    }
                })
                .then();
    }

    /**
     * Calls a service; {@code payload} is released once sent. Emits the response body, the library's (released
     * after onNext).
     */
    static Mono<ByteBuf> service(RdmaSession session, String name, ByteBuf payload) {
        ByteBuf request = Unpooled.wrappedBuffer(Wire.serviceHeader(ByteBufAllocator.DEFAULT, name), payload);
        return session.request(request)
                .onErrorMap(e -> lost(name, e))
                .handle((response, sink) -> {
                    RuntimeException failure = failure(name, response);
                    if (failure != null) {
                        sink.error(failure);
                    } else {
                        sink.next(response);
                    }
                });
    }

    /** The exception a non-OK response stands for, or null if OK (then the reader index is past the header). */
    private static RuntimeException failure(String name, ByteBuf response) {
        if (response.readableBytes() < 2 || response.readUnsignedByte() != Wire.VERSION) {
            return new RemoteMemoryException(name, "the memory server answered '" + name + "' with something"
                    + " that is not a directory response of version " + Wire.VERSION);
        }
        int status = response.readUnsignedByte();
        if (status == Wire.OK) {
            return null;
        }
        String message;
        try {
            message = Wire.readString(response);
        } catch (IllegalArgumentException e) {
            message = "(no reason given)";
        }
        return switch (status) {
            case Wire.NO_SUCH -> new NoSuchRegionException(name, message);
            case Wire.DENIED -> new RegionAccessDeniedException(name, message);
            case Wire.LEASE_GONE -> new RegionRevokedException(name, message, null);
            default -> new RemoteMemoryException(name, message);
        };
    }

    private static Throwable lost(String name, Throwable e) {
        if (e instanceof RemoteMemoryException) {
            return e;
        }
        if (e instanceof RdmaRemoteException) {
            return new RemoteMemoryException(name, "the memory server failed the request for '" + name + "': "
                    + e.getMessage(), e);
        }
        return new RemoteMemoryException(name, "the connection to the memory server failed during the request for '"
                + name + "': " + e, e);
    }

    static Set<RegionAccess> rights(int bits) {
        EnumSet<RegionAccess> rights = EnumSet.noneOf(RegionAccess.class);
        if ((bits & Wire.READ_BIT) != 0) {
            rights.add(RegionAccess.READ);
        }
        if ((bits & Wire.WRITE_BIT) != 0) {
            rights.add(RegionAccess.WRITE);
        }
        if ((bits & Wire.ATOMIC_BIT) != 0) {
            rights.add(RegionAccess.ATOMIC);
        }
        return java.util.Collections.unmodifiableSet(rights);
    }
}
