package io.softrdma.samples.perf;

import reactor.core.publisher.Mono;

/** RdmaCache as the cache benchmark measures it (wired once rdma-memory's cache lands). */
final class RdmaCacheTarget implements CacheTarget {
    RdmaCacheTarget(CacheOptions options) {
        throw new UnsupportedOperationException("RdmaCache is not wired into the benchmark yet");
    }

    @Override
    public String name() {
        return "cache";
    }

    @Override
    public Mono<byte[]> get(byte[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Mono<Void> set(byte[] key, byte[] value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public double serverCpu() {
        return Double.NaN;
    }

    @Override
    public void restartServerCpu() {
    }

    @Override
    public String clientThreads() {
        return "rdma-cache-client";
    }

    @Override
    public void close() {
    }
}
