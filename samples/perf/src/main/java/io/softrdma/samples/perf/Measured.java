package io.softrdma.samples.perf;

/**
 * What a bandwidth phase did.
 *
 * @param operations the operations completed
 * @param nanos from the first operation started to the last confirmed
 */
record Measured(long operations, long nanos) {
}
