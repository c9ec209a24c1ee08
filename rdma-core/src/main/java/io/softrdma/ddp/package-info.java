/**
 * DDP, Direct Data Placement over Reliable Transports (RFC 5041): the part of it an application sees.
 *
 * <p><b>Supported API.</b> {@link io.softrdma.ddp.DdpError}, DDP's error table (§7.2), which a Terminate's
 * code ({@link io.softrdma.rdmap.TerminateCode}) may name. Immutable.
 *
 * <p>The segment headers for the Tagged and Untagged Buffer Models and the untagged queue numbers RDMAP
 * uses are in {@code io.softrdma.internal.ddp}; the placement engine itself — STag and bounds checks,
 * MSN and MO rules, copying payload into registered memory — runs in {@code io.softrdma.verbs}, next to
 * the queue pair state it needs.
 */
package io.softrdma.ddp;
