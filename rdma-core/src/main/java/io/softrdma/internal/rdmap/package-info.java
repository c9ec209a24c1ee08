/**
 * RDMAP's wire formats (RFC 5040 §4, RFC 7306 §5.2, §6.2): the Read Request, Terminate, Atomic Request and
 * Response and Immediate Data headers, and the cause of a Terminate this endpoint sends. <b>Not API:</b>
 * these types may change or go without notice. The queue pair engine of {@code io.softrdma.verbs} uses
 * them. Stateless codecs and immutable values.
 */
package io.softrdma.internal.rdmap;
