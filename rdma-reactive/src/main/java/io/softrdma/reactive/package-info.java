/**
 * The Reactor façade over rdma-core: RDMA Write, Read and Send as {@code Mono} and {@code Flux} on
 * reactor-netty, with Reactive Streams demand mapped to receive credits and to read-queue depth.
 *
 * <p>Not built yet: this module exists so the build has its final shape (see docs/architecture.md).
 */
package io.softrdma.reactive;
