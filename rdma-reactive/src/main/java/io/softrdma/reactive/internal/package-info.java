/**
 * Not API: the session engine behind {@code io.softrdma.reactive}, which may change in any release without notice.
 * Nothing outside this module may use it (an ArchUnit test holds that).
 *
 * <p>A session's messaging is {@link io.softrdma.reactive.internal.MessagingEngine}, put together from parts named for
 * what docs/protocol.md calls them: the receive slots and the receiver, the transmitter, the credit window, large
 * messages, the inbound stream and the stream sender, request/response correlation on each side, and RFC 7306
 * Immediate Data. Everything here runs on the session's event loop unless a method says otherwise.
 */
package io.softrdma.reactive.internal;
