/**
 * Remote memory as a product: a {@link io.softrdma.memory.MemoryServer} lends named regions through a directory,
 * under an {@link io.softrdma.memory.AccessPolicy}, as leases whose STags it invalidates on expiry, revocation,
 * resize or drop; a {@link io.softrdma.memory.RemoteMemory} resolves them into
 * {@link io.softrdma.memory.RemoteRegion}s reached with one-sided RDMA Reads, Writes and RFC 7306 atomics, with
 * typed values and versioned records whose torn reads are detected. See docs/remote-memory.md; the wire format is
 * in docs/protocol.md.
 */
package io.softrdma.memory;
