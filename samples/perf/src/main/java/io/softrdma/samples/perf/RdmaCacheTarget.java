package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryCodec;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.memory.cache.CacheOwner;
import io.softrdma.memory.cache.RdmaCache;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * RdmaCache as the cache benchmark measures it: a memory server owning one cache ({@link CacheOwner}) on its own
 * event loop, and one {@link RemoteMemory} client with an {@link RdmaCache} of byte arrays on another, both in this
 * process on 127.0.0.1. GET is one-sided (RDMA Reads of bucket and entry, checked; both at once for a key the client
 * has found before, RdmaCache's location hints); SET is a request the owner handles on its event loop. Values are
 * copied into byte arrays on both sides, as Lettuce's byte-array codec does for Redis.
 *
 * <p>Thread safety: as {@link CacheTarget}.
 */
final class RdmaCacheTarget implements CacheTarget {
    static final String SERVER_THREADS = "cache-server";
    static final String CLIENT_THREADS = "cache-client";
    private static final String CACHE = "perf";
    private static final String CREDENTIAL = "perf";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final EventLoopGroup serverLoops;
    private final EventLoopGroup clientLoops;
    private final CacheOwner owner;
    private final DisposableMemoryServer server;
    private final RemoteMemory memory;
    private final RdmaCache<byte[], byte[]> cache;
    private final ThreadUsage serverCpu = ThreadUsage.start(SERVER_THREADS);

    RdmaCacheTarget(CacheOptions options) {
        RdmaTransport transport = RdmaTransport.best();
        serverLoops = transport.newEventLoopGroup(1, new DefaultThreadFactory(SERVER_THREADS, true),
                options.ownerBusyPoll());
        clientLoops = transport.newEventLoopGroup(1, new DefaultThreadFactory(CLIENT_THREADS, true),
                options.busyPoll());
        int entry = entrySize(Collections.max(options.sizes()));
        long size = tableSize(options.keys(), Collections.max(options.sizes()));
        AccessPolicy policy = AccessPolicy.grant(CREDENTIAL, CacheOwner.regionName(CACHE), RegionAccess.READ,
                RegionAccess.WRITE);
        owner = CacheOwner.builder(CACHE).size(size).maxEntry(entry).policy(policy).build();
        server = owner.declareOn(MemoryServer.create().host("127.0.0.1").port(0).policy(policy)
                .rdmaServer(s -> s.mpa(m -> m.withCrc(options.crc())).tcpConfiguration(t -> t.runOn(serverLoops))))
                .bindNow(TIMEOUT);
        owner.start(server);
        memory = RemoteMemory.builder().servers(List.of(new InetSocketAddress("127.0.0.1", server.port())))
                .credential(CREDENTIAL).rdmaClient(c -> c.mpa(m -> m.withCrc(options.crc()))
                        .tcpConfiguration(t -> t.runOn(clientLoops))).build();
        cache = RdmaCache.builder(memory, CACHE, byte[].class, byte[].class).codec(BYTES).build();
    }

    /** The largest entry: its header (32 octets), the key (at most a dozen octets) and the value. */
    private static int entrySize(int largestValue) {
        return 32 + 16 + largestValue;
    }

    /**
     * The cache table's octets for {@code keys} keys of values up to {@code largestValue}: three times every key's
     * entry, so that the log the owner writes oldest-first never overwrites a live entry during the run; 16 MiB at
     * least.
     */
    static long tableSize(int keys, int largestValue) {
        return Math.max(16L << 20, ((3L * keys * entrySize(largestValue)) + 7) & ~7L);
    }

    @Override
    public String name() {
        return "cache";
    }

    @Override
    public Mono<byte[]> get(byte[] key) {
        return cache.get(key);
    }

    @Override
    public Mono<Void> set(byte[] key, byte[] value) {
        return cache.put(key, value);
    }

    @Override
    public double serverCpu() {
        return serverCpu.utilization();
    }

    @Override
    public void restartServerCpu() {
        serverCpu.restart();
    }

    @Override
    public String clientThreads() {
        return CLIENT_THREADS;
    }

    @Override
    public void close() {
        memory.dispose();
        owner.dispose();
        server.disposeNow(TIMEOUT);
        for (EventLoopGroup loops : new EventLoopGroup[] {clientLoops, serverLoops}) {
            loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Byte arrays as they are: the key's octets hash it to its server and are compared in the entry. */
    private static final MemoryCodec BYTES = new MemoryCodec() {
        @Override
        public ByteBuf encode(Object value, ByteBufAllocator allocator) {
            return Unpooled.wrappedBuffer((byte[]) value);
        }

        @Override
        public <T> T decode(ByteBuf data, Class<T> type) {
            return type.cast(ByteBufUtil.getBytes(data));
        }
    };
}
