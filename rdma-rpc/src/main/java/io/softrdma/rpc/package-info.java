/**
 * RPC-over-RDMA version 1 (RFC 8166) with ONC RPC (RFC 5531): the transport of NFS over RDMA. This package, the
 * module {@code rdma-rpc}, is SoftRDMA's supported RPC-over-RDMA API. It is a session protocol
 * ({@code io.softrdma.reactive.spi.SessionProtocol}, RFC 5040 §1's ULP) of rdma-reactive's {@code RdmaClient} and
 * {@code RdmaServer}: each connection is an {@code RdmaSession} (TCP through reactor-netty, the MPA startup, a queue
 * pair with its protection domain and completion queue) whose receives land in the session's receive-slot arena.
 *
 * <p>The codecs ({@link io.softrdma.rpc.RpcRdmaHeader}, {@link io.softrdma.rpc.RpcCallHeader},
 * {@link io.softrdma.rpc.RpcReplyHeader}, {@link io.softrdma.rpc.RpcAuth}, {@link io.softrdma.rpc.Xdr}) are XDR
 * (RFC 4506) over Netty buffers; {@link io.softrdma.rpc.RpcRdmaCredits} is the credit bookkeeping of RFC 8166 §3.3
 * as Linux does it; {@link io.softrdma.rpc.RpcRdmaClient} calls procedures of a server such as the Linux kernel's
 * NFS server (svcrdma), and {@link io.softrdma.rpc.RpcRdmaServer} serves them, with the same rules, on sessions
 * whose RFC 8797 private data sets the inline thresholds.
 *
 * <h2>Thread safety</h2>
 *
 * <ul>
 *   <li>The headers, segments and chunks ({@link io.softrdma.rpc.RpcRdmaHeader},
 *       {@link io.softrdma.rpc.RpcCallHeader}, {@link io.softrdma.rpc.RpcReplyHeader},
 *       {@link io.softrdma.rpc.RpcAuth}, {@link io.softrdma.rpc.RdmaSegment}, {@link io.softrdma.rpc.ReadSegment},
 *       {@link io.softrdma.rpc.WriteChunk}, {@link io.softrdma.rpc.RpcRdmaError}) are immutable;
 *       {@link io.softrdma.rpc.Xdr} is stateless.</li>
 *   <li>{@link io.softrdma.rpc.RpcRdmaClient} and {@link io.softrdma.rpc.RpcRdmaServer} are immutable builders:
 *       each setter returns a new one.</li>
 *   <li>{@link io.softrdma.rpc.RpcRdmaConnection} may be called from any thread; its state lives on the
 *       connection's event loop, where replies are emitted.</li>
 *   <li>{@link io.softrdma.rpc.RpcRdmaCredits} is not thread safe: it belongs to one connection's event loop.</li>
 *   <li>A server keeps each connection's state on that connection's event loop and calls its
 *       {@link io.softrdma.rpc.RpcHandler} there; the handler's result may arrive on any thread.</li>
 * </ul>
 *
 * <h2>Buffer ownership</h2>
 *
 * <ul>
 *   <li>The codecs neither retain nor release: {@code decode} reads from the buffer it is given (moving its reader
 *       index) and copies what it keeps; {@code encode} writes into the buffer it is given.</li>
 *   <li>{@link io.softrdma.rpc.RpcRdmaConnection#call(int, int, int, io.netty.buffer.ByteBuf) call} takes over its
 *       {@code args} and releases them: at once when the call is invalid, otherwise when the call ends, which
 *       needs the returned Mono to be subscribed (one never subscribed to never sends nor releases them).
 *       A result sink stays the caller's: the responder RDMA-Writes into its writable octets and its writer index
 *       advances by what was written.</li>
 *   <li>An {@link io.softrdma.rpc.RpcReply} is reference counted and owned by whoever receives it: release it, or
 *       its {@link io.softrdma.rpc.RpcReply#results() results}, when done. The reply to a cancelled call is released
 *       for the caller.</li>
 *   <li>An {@link io.softrdma.rpc.RpcHandler}'s arguments belong to the server and are valid until the handler's
 *       Mono completes (or the connection ends); a handler that keeps them longer retains them. The buffers of the
 *       {@link io.softrdma.rpc.RpcResult} it answers with pass to the server, which releases them.</li>
 * </ul>
 */
package io.softrdma.rpc;
