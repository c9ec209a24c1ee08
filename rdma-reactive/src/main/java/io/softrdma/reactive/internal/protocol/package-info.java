/**
 * Not API (it may change without notice; the wire format it implements may not). The wire protocol of SoftRDMA's
 * reactive messaging: a small protocol over RDMA Sends (RFC 5040 §5.3) on one
 * queue pair, specified in docs/protocol.md.
 *
 * <ul>
 *   <li>{@link io.softrdma.reactive.internal.protocol.MessageHeader} — the 8-octet header at the start of every Send
 *       (type, flags, credits, correlation id), a flyweight codec over {@code ByteBuf}s, and the
 *       {@link io.softrdma.reactive.internal.protocol.MessageHeader.ProtocolException} a malformed message raises;</li>
 *   <li>{@link io.softrdma.reactive.internal.protocol.MessageType} — DATA, REQUEST, RESPONSE, CREDIT, LARGE, READ_DONE,
 *       ERROR;</li>
 *   <li>{@link io.softrdma.reactive.internal.protocol.LargeMessageDescriptor} — the region a LARGE message's receiver
 *       RDMA-Reads;</li>
 *   <li>{@link io.softrdma.reactive.internal.protocol.CreditWindow} — the credit rules: grants in every header, one credit
 *       held back, receive buffers posted for downstream demand, standalone updates only when needed.</li>
 * </ul>
 *
 * <p>Everything here is pure logic with no I/O: the engine in {@code io.softrdma.reactive.internal} posts, sends and
 * delivers, and consults these types on its connection's event loop.
 */
package io.softrdma.reactive.internal.protocol;
