/**
 * The Netty binding: pipeline slot names, event-loop and channel choice (native epoll when present),
 * socket options, and what the kernel can tell about a TCP connection (its EMSS).
 *
 * <p>Owns no protocol state.
 */
package io.softrdma.transport;
