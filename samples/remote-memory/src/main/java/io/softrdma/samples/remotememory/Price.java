package io.softrdma.samples.remotememory;

/**
 * A price the service publishes in region {@code prices}, as a versioned record (JSON).
 *
 * @param sku the product
 * @param cents the price
 * @param revision how many times the service has published this SKU's price; with {@code cents}, derived from it,
 *     so that a reader can tell a consistent price from a torn one
 *
 * <p>Thread safety: immutable.
 */
public record Price(int sku, long cents, long revision) {
    /** The price of {@code sku} at {@code revision}: a function of both, so that a reader can check it. */
    public static Price of(int sku, long revision) {
        return new Price(sku, 1000 + 7L * sku + revision % 100, revision);
    }

    /** Whether this is what {@link #of} gives for its SKU and revision. */
    public boolean consistent() {
        return equals(of(sku, revision));
    }
}
