package io.softrdma.verbs;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A software RDMA device (the "RNIC" of RFC 5040): the STag space shared by its protection domains,
 * and the factory of protection domains and completion queues.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RdmaDevice {
    private final String name;
    private final StagTable stags = new StagTable();
    private final AtomicInteger domains = new AtomicInteger();
    private final AtomicInteger queuePairs = new AtomicInteger();

    private RdmaDevice(String name) {
        this.name = name;
    }

    /** A device named {@code softrdma0}. */
    public static RdmaDevice create() {
        return create("softrdma0");
    }

    public static RdmaDevice create(String name) {
        return new RdmaDevice(name);
    }

    public String name() {
        return name;
    }

    public ProtectionDomain allocateProtectionDomain() {
        return new DefaultProtectionDomain(this, domains.incrementAndGet());
    }

    /**
     * A completion queue of {@code capacity} entries. Every queue pair that uses it reserves its send and
     * receive queue depths out of that capacity, so it can never overflow (RFC 5040 §8.1.1 req. 10).
     */
    public CompletionQueue createCompletionQueue(int capacity) {
        return new DefaultCompletionQueue(capacity);
    }

    /** Registered memory regions, for diagnostics and tests. */
    public int registeredRegions() {
        return stags.size();
    }

    StagTable stagTable() {
        return stags;
    }

    int nextQueuePairNumber() {
        return queuePairs.incrementAndGet();
    }

    MemoryRegion register(DefaultMemoryRegion region) {
        stags.add(region);
        return region;
    }

    /** The region an STag's index names, or null; the caller checks key and validity. */
    DefaultMemoryRegion lookup(int stag) {
        return stags.lookup(stag);
    }

    @Override
    public String toString() {
        return "RdmaDevice{" + name + ", " + stags.size() + " regions}";
    }
}
