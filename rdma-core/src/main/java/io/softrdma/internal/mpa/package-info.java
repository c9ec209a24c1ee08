/**
 * MPA's machinery (RFC 5044). <b>Not API:</b> these types may change or go without notice; applications
 * use {@code io.softrdma.mpa}, {@code io.softrdma.cm} and {@code io.softrdma.verbs}.
 *
 * <p>Owns the startup phase (§7.1: MPA Request and Reply frames, M/C/R flags, revision, private data,
 * initiator and responder rules, timeouts, rejection) and the full operation phase (§4–§6: FPDU
 * framing with ULPDU_Length, PAD and CRC32c; Markers every 512 octets; MULPDU from the TCP EMSS;
 * FPDU identification on receive), and reports the errors of §8 upward as {@link
 * io.softrdma.mpa.LlpErrorCode}s.
 *
 * <p>Does not own DDP or RDMAP headers, Terminate messages (the layers above turn an {@link
 * io.softrdma.internal.mpa.FpduException} into one), or the TCP connection itself.
 *
 * <p>Handlers: {@link io.softrdma.internal.mpa.MpaStartupHandler} runs once and replaces itself with an
 * {@link io.softrdma.internal.mpa.FpduEncoder} and an {@link io.softrdma.internal.mpa.FpduDecoder}. Wire
 * formats live in {@link io.softrdma.internal.mpa.MpaStartupFrameCodec} and {@link
 * io.softrdma.internal.mpa.FpduCodec}. Handlers run on their channel's event loop.
 */
package io.softrdma.internal.mpa;
