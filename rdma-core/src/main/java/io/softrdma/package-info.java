/**
 * SoftRDMA: iWARP (RDMAP, RFC 5040; DDP, RFC 5041; MPA, RFC 5044) over TCP in pure Java. This package
 * holds what every layer throws: {@link io.softrdma.RdmaException} and
 * {@link io.softrdma.ConnectionClosedException}.
 *
 * <p><b>Supported API.</b> The supported API of rdma-core is this package and {@code io.softrdma.verbs}
 * (queue pairs, memory regions, completions), {@code io.softrdma.cm} (connecting, listening, putting
 * SoftRDMA into a channel), {@code io.softrdma.mpa} (MPA settings and the outcome of the startup),
 * {@code io.softrdma.rdmap} and {@code io.softrdma.ddp} (opcodes, extensions, the Terminate vocabulary).
 * The packages under {@code io.softrdma.internal} are the protocol machinery: not API, and they change
 * without notice. An ArchUnit test keeps API signatures free of internal types.
 *
 * <p>Thread safety and buffers: each type says what may be called from which thread; immutable value
 * types (records, enums) may be shared freely. Byte arrays the API returns are copies, and those it
 * keeps are copied in, unless a method says otherwise; a {@code ByteBuf} handed to the API stays the
 * caller's to release (the API retains what it keeps).
 */
package io.softrdma;
