/**
 * The connection manager: listen, connect, accept and reject with private data (RFC 5044 §7.1), and the
 * binding of a queue pair to each established stream.
 *
 * <p>Owns connection setup and the choice of transport; does not own the MPA startup itself
 * ({@code io.softrdma.mpa}) or the queue pair ({@code io.softrdma.verbs}).
 */
package io.softrdma.cm;
