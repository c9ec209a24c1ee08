/**
 * DDP's wire formats (RFC 5041). <b>Not API:</b> these types may change or go without notice.
 *
 * <p>Owns the segment headers for the Tagged and Untagged Buffer Models (RFC 5041 §4, as RFC 5040
 * Appendix A shows them for each RDMA message) and the untagged queue numbers RDMAP uses. The placement
 * engine — STag and bounds checks, MSN and MO rules, copying payload into registered memory — runs in
 * {@code io.softrdma.verbs}, next to the queue pair state it needs; it uses these codecs. Stateless.
 */
package io.softrdma.internal.ddp;
