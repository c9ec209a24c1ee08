package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import reactor.core.publisher.Mono;

/**
 * Serves the calls of an {@link RpcRdmaServer}: one call's header and XDR arguments (with any Read chunk data put
 * back in place) in, its result out. The arguments are valid until the returned Mono completes. An error from the
 * Mono is answered with SYSTEM_ERR.
 */
@FunctionalInterface
public interface RpcHandler {
    Mono<RpcResult> handle(RpcCallHeader call, ByteBuf args);
}
