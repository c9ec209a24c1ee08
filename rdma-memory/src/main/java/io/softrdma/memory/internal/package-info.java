/**
 * How rdma-memory works: the directory's wire format, the server's leases, the client's connections and leases,
 * the versioned-record protocol. Not API: nothing here is named by a public signature of
 * {@code io.softrdma.memory}, and any of it may change.
 */
package io.softrdma.memory.internal;
