package io.softrdma.samples.remotememory;

import io.softrdma.memory.RecordLayout;

/**
 * Where things are in the service's regions; service and client share it, as the two sides of a wire format do.
 * {@code counters}: 64-bit words, the first one the visits. {@code prices}: one versioned record per SKU, each
 * {@link #PRICE_SLOT} octets apart.
 *
 * <p>Thread safety: constants and a pure function.
 */
public final class Layout {
    /** The word of region {@code counters} that counts the storefront's visits. */
    public static final long VISITS = 0;
    /** The most octets a price's JSON takes. */
    public static final int PRICE_CAPACITY = 112;
    /** Octets between two SKUs' price records: a record's header, payload and padding. */
    public static final long PRICE_SLOT = RecordLayout.footprint(PRICE_CAPACITY);
    /** As many SKUs as region {@code prices} (64 KB in application.yaml) holds. */
    public static final int MAX_SKUS = (int) (64 * 1024 / PRICE_SLOT);

    private Layout() {
    }

    /** The offset of the price record of {@code sku}. */
    public static long price(int sku) {
        if (sku < 0 || sku >= MAX_SKUS) {
            throw new IllegalArgumentException("sku " + sku + " must be 0 to " + (MAX_SKUS - 1));
        }
        return sku * PRICE_SLOT;
    }
}
