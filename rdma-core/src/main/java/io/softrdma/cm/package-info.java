/**
 * The connection manager: listen, connect, accept and reject with private data (RFC 5044 §7.1), and the
 * binding of a queue pair to each established stream.
 *
 * <p>Owns connection setup and the choice of transport ({@link io.softrdma.cm.RdmaTransport}: epoll or
 * NIO event loops and channels); does not own the MPA startup itself ({@code io.softrdma.mpa}) or the
 * queue pair ({@code io.softrdma.verbs}). {@link io.softrdma.cm.RdmaPipeline} puts SoftRDMA into a
 * channel that other code creates (reactor-netty, for example), with TLS if that channel has it.
 *
 * <p><b>Supported API.</b> Every public type of this package.
 *
 * <p>Thread safety: {@link io.softrdma.cm.ConnectionManager}, {@link io.softrdma.cm.ConnectRequest}'s
 * accept and reject, and {@link io.softrdma.cm.RdmaConnection} may be used from any thread; {@link
 * io.softrdma.cm.RdmaPipeline} is called on the channel's event loop (or before it is registered); the
 * {@link io.softrdma.cm.ConnectRequestHandler} is called on the connection's event loop.
 *
 * <p>Buffers: private data is passed and returned as byte arrays, copied.
 */
package io.softrdma.cm;
