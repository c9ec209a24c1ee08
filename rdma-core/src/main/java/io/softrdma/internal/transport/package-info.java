/**
 * The Netty binding: pipeline slot names, the write barrier that tells when TCP took a queue pair's
 * writes and its adapter for TLS, and what the kernel can tell about a TCP connection (its EMSS).
 * <b>Not API:</b> these types may change or go without notice; the choice of event loops and channels
 * is {@link io.softrdma.cm.RdmaTransport}, and TLS is set up through {@link io.softrdma.cm.RdmaPipeline}.
 *
 * <p>Owns no protocol state.
 */
package io.softrdma.internal.transport;
