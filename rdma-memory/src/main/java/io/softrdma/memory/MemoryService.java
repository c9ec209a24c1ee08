package io.softrdma.memory;

import io.netty.buffer.ByteBuf;
import reactor.core.publisher.Mono;

/**
 * A named request handler on a memory server, reached with {@link RemoteMemory#request(String, Object, ByteBuf)}:
 * the two-sided complement of one-sided access, for what the owner must do itself (a cache's PUT, DELETE and
 * eviction). Registered with {@link MemoryServer#service(String, MemoryService)}.
 *
 * <p>Buffers: {@code request} is the library's, valid until the returned Mono terminates, then released (retain it
 * to keep it longer). The response buffer is handed to the library, which releases it once sent; an empty Mono
 * answers with an empty response; an error answers with an error the client sees as a
 * {@link RemoteMemoryException} carrying the error's message.
 *
 * <p>Thread safety: called on the session's event loop, concurrently for different sessions: implementations must
 * be thread-safe and must not block.
 */
@FunctionalInterface
public interface MemoryService {
    /** Answers one request from {@code peer}. */
    Mono<ByteBuf> handle(PeerIdentity peer, ByteBuf request);
}
