/**
 * The Reactor façade over rdma-core, and the supported API of this module: {@link io.softrdma.reactive.RdmaClient} and
 * {@link io.softrdma.reactive.RdmaServer} set sessions up over reactor-netty; an
 * {@link io.softrdma.reactive.RdmaSession} offers RDMA Write, Read and RFC 7306 atomics as {@code Mono} and
 * {@code Flux} on memory the peer registered, and messaging with credits (docs/protocol.md), with Reactive Streams
 * demand mapped to receive credits and to read-queue depth.
 *
 * <p>Buffer ownership, as in Reactor Netty: a buffer the library emits (a received message, a Read result, a
 * response, a request handed to a handler) is the library's and is released once {@code onNext} returns (for a
 * handler: once its publisher ends); keeping it longer is the explicit opt-in of retaining it. A buffer handed to the
 * library (a message sent, data written, a response) is the library's from then on, released once used.
 *
 * <p>Thread safety: every type here may be used from any thread; each session's state lives on its event loop, and
 * callbacks (handlers, {@code onNext}) run there and must not block. Packages named {@code internal} are not API.
 */
package io.softrdma.reactive;
