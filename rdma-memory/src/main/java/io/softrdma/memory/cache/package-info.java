/**
 * An RDMA cache: a Pilaf-style hash table in a memory server's region. {@link io.softrdma.memory.cache.CacheOwner}
 * keeps the table in the owner's region and serves PUT, DELETE and clear; {@link io.softrdma.memory.cache.RdmaCache}
 * GETs with one-sided RDMA Reads of a bucket and an entry, each verified by its CRC-32C, the key compared, and
 * retried when the owner changed them while they were read. Keys shard over several servers by consistent hashing.
 * The table layout is in docs/protocol.md ("RDMA cache table").
 */
package io.softrdma.memory.cache;
