/**
 * The verbs: devices, protection domains, memory regions, queue pairs and completion queues, in the
 * shape of the RDMA verbs (RFC 5040 §5, §6), and the queue pair engine that runs DDP placement (RFC
 * 5041) and RDMAP semantics (RFC 5040, RFC 7306) for each stream.
 *
 * <p><b>Supported API.</b> The public types of this package are SoftRDMA's API for applications; the
 * engine ({@code DefaultQueuePair}, its sender and receiver, the STag table) is package-private. {@link
 * io.softrdma.verbs.QueuePairHandler} is public for {@code io.softrdma.cm}, which puts it into a channel;
 * applications reach it through {@link io.softrdma.cm.RdmaPipeline} or {@link
 * io.softrdma.cm.ConnectionManager}.
 *
 * <p>Thread safety: posts, {@code close} and the getters of a queue pair, memory region, protection domain
 * and device may be called from any thread; a completion queue has one consumer at a time; listener
 * callbacks run on the queue pair's event loop and must not block. Each type says more.
 *
 * <p>Buffers: a memory region retains the buffer it registers and releases its reference when closed;
 * the caller keeps its own. Registered memory belongs to the operations that use it until they complete
 * (RFC 5040 §5.5 rules 7 and 8): what it holds meanwhile is indeterminate.
 */
package io.softrdma.verbs;
