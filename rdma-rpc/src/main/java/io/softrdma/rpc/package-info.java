/**
 * RPC-over-RDMA version 1 (RFC 8166) with ONC RPC (RFC 5531): the transport of NFS over RDMA.
 *
 * <p>The codecs ({@link io.softrdma.rpc.RpcRdmaHeader}, {@link io.softrdma.rpc.RpcCallHeader},
 * {@link io.softrdma.rpc.RpcReplyHeader}, {@link io.softrdma.rpc.RpcAuth}, {@link
 * io.softrdma.rpc.Xdr}) are XDR (RFC 4506) over Netty buffers; {@link
 * io.softrdma.rpc.RpcRdmaCredits} is the credit bookkeeping of RFC 8166 §3.3 as Linux does it; {@link
 * io.softrdma.rpc.RpcRdmaClient} calls procedures of a server such as the Linux kernel's NFS server
 * (svcrdma), and {@link io.softrdma.rpc.RpcRdmaServer} serves them, with the same rules, on rdma-core queue
 * pairs whose RFC 8797 private data sets the inline thresholds.
 */
package io.softrdma.rpc;
