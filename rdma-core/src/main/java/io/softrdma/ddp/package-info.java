/**
 * DDP, Direct Data Placement over Reliable Transports (RFC 5041): segment headers for the Tagged and
 * Untagged Buffer Models, the untagged queue numbers RDMAP uses, and DDP's error table.
 *
 * <p>Owns the wire formats (RFC 5041 §4, as RFC 5040 Appendix A shows them for each RDMA message) and
 * the error vocabulary (§7.2). The placement engine itself — STag and bounds checks, MSN and MO rules,
 * copying payload into registered memory — runs in {@code io.softrdma.verbs}, next to the queue pair
 * state it needs; it uses these codecs.
 */
package io.softrdma.ddp;
