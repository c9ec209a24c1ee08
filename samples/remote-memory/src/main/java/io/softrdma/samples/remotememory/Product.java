package io.softrdma.samples.remotememory;

/**
 * A product, as the client's catalog loads it and the RDMA cache keeps it (JSON).
 *
 * @param id its identifier
 * @param name its name
 * @param sku the SKU its price is published under
 *
 * <p>Thread safety: immutable.
 */
public record Product(String id, String name, int sku) {
}
