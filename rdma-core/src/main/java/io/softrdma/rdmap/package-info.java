/**
 * RDMAP, the Remote Direct Memory Access Protocol (RFC 5040): opcodes, the Read Request and Terminate
 * headers, and the Terminate vocabulary (Layer, Error Type, Error Code) for RDMAP, DDP and MPA errors.
 *
 * <p>Owns the wire formats of §4 and the error table of §4.8; the message semantics of §5 to §7
 * (Read processing, Send delivery, ordering and completion, Terminate and teardown) run in the queue
 * pair engine of {@code io.softrdma.verbs}, which uses these types.
 */
package io.softrdma.rdmap;
