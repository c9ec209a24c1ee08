/**
 * MPA, Marker PDU Aligned Framing for TCP (RFC 5044): the lowest iWARP layer.
 *
 * <p><b>Supported API.</b> What an application sets and learns about MPA: {@link
 * io.softrdma.mpa.MpaSettings} and {@link io.softrdma.mpa.PeerToPeerMode} (RFC 6581); the outcome of the
 * startup, {@link io.softrdma.mpa.MpaNegotiation}, with the frames and values it holds ({@link
 * io.softrdma.mpa.MpaStartupFrame}, {@link io.softrdma.mpa.IrdOrdHeader}, {@link io.softrdma.mpa.MpaRole},
 * {@link io.softrdma.mpa.ReadyToReceive}); its failures ({@link io.softrdma.mpa.MpaException}, {@link
 * io.softrdma.mpa.MpaStartupException}, {@link io.softrdma.mpa.MpaRejectedException}); and the LLP error
 * codes of §8 ({@link io.softrdma.mpa.LlpErrorCode}) that Terminates carry.
 *
 * <p>The machinery — the startup phase (§7.1: Request and Reply frames, M/C/R flags, revision, private
 * data, initiator and responder rules, timeouts, rejection) and the full operation phase (§4–§6: FPDU
 * framing with ULPDU_Length, PAD and CRC32c; Markers every 512 octets; MULPDU from the TCP EMSS; FPDU
 * identification on receive) — is in {@code io.softrdma.internal.mpa}.
 *
 * <p>Thread safety: the types here are immutable (records, enums, frames whose private data is copied
 * in and out), except the exceptions, which are not to be modified after they are thrown.
 */
package io.softrdma.mpa;
