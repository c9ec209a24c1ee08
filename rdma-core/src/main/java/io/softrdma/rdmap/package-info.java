/**
 * RDMAP, the Remote Direct Memory Access Protocol (RFC 5040, with RFC 7306's extensions): the part of it
 * an application sees.
 *
 * <p><b>Supported API.</b> The opcodes ({@link io.softrdma.rdmap.RdmapOpcode}, which queue pair counters
 * are kept by), the extensions a stream may agree to ({@link io.softrdma.rdmap.RdmapExtensions}, {@link
 * io.softrdma.rdmap.AtomicOperation}), and the Terminate vocabulary of §4.8 — Layer, Error Type and
 * Error Code for RDMAP, DDP and MPA errors ({@link io.softrdma.rdmap.TerminateCode}, {@link
 * io.softrdma.rdmap.TerminateLayer}, {@link io.softrdma.rdmap.RdmapError}), a Terminate received
 * ({@link io.softrdma.rdmap.ReceivedTerminate}) and the exception a stream ends with ({@link
 * io.softrdma.rdmap.TerminateException}). Immutable; byte arrays are copied out.
 *
 * <p>The wire formats of §4 are in {@code io.softrdma.internal.rdmap}; the message semantics of §5 to §7
 * (Read processing, Send delivery, ordering and completion, Terminate and teardown) run in the queue pair
 * engine of {@code io.softrdma.verbs}.
 */
package io.softrdma.rdmap;
