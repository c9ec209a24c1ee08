/**
 * The service-provider interface for protocols that run on a session's queue pair instead of SoftRDMA messaging:
 * {@link io.softrdma.reactive.spi.SessionProtocol} (an upper layer protocol, RFC 5040 §1), the
 * {@link io.softrdma.reactive.spi.ReceiveSlots} arena every protocol receives through, and
 * {@link io.softrdma.reactive.spi.PendingOperation}. Supported API for protocol modules (rdma-rpc uses it); an
 * application sets a protocol with {@code RdmaClient.protocol(...)} and {@code RdmaServer.protocol(...)} and needs
 * nothing else from here.
 *
 * <p>Thread safety: everything here runs on the session's event loop, but for releasing a received view.
 * Buffers: a {@link io.softrdma.reactive.spi.ReceiveSlots.Slot#view view} is the protocol's until released, which
 * returns its slot.
 */
package io.softrdma.reactive.spi;
