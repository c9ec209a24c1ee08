/**
 * How the RDMA cache works: the table layout, the owner's table, the one-sided GET and the owner's request
 * protocol. Not API: nothing here is named by a public signature of {@code io.softrdma.memory.cache}.
 */
package io.softrdma.memory.cache.internal;
