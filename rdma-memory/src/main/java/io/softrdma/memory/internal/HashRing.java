package io.softrdma.memory.internal;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Consistent hashing of shard keys over servers (Karger et al., 1997): each server stands at {@link #POINTS} points
 * of a 64-bit ring, a key goes to the first point at or after its hash, so a server that comes or goes moves only
 * the keys next to its points. Servers are named by {@code host:port}, so every client with the same list agrees.
 *
 * <p>Thread safety: immutable.
 */
public final class HashRing {
    static final int POINTS = 160;

    private final List<InetSocketAddress> servers;
    /** Each server's {@link #name}, computed once. */
    private final String[] names;
    /** The ring's points in ascending order, and the index in {@link #servers} of each point's server. */
    private final long[] points;
    private final int[] owners;

    public HashRing(List<InetSocketAddress> servers) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no memory servers to hash over");
        }
        this.servers = List.copyOf(servers);
        names = new String[this.servers.size()];
        TreeMap<Long, Integer> ring = new TreeMap<>();
        for (int s = 0; s < this.servers.size(); s++) {
            String name = name(this.servers.get(s));
            names[s] = name;
            for (int i = 0; i < POINTS; i++) {
                ring.put(hash((name + "#" + i).getBytes(StandardCharsets.UTF_8)), s);
            }
        }
        points = new long[ring.size()];
        owners = new int[ring.size()];
        int i = 0;
        for (Map.Entry<Long, Integer> point : ring.entrySet()) {
            points[i] = point.getKey();
            owners[i++] = point.getValue();
        }
    }

    public List<InetSocketAddress> servers() {
        return servers;
    }

    /** The server of {@code key}: a {@code byte[]} by its octets, anything else by its {@code toString()}. */
    public InetSocketAddress pick(Object key) {
        return servers.get(index(key));
    }

    /** The {@link #name} of {@link #pick}'s server, without building it again. */
    public String pickName(Object key) {
        return names[index(key)];
    }

    private int index(Object key) {
        if (names.length == 1) {
            return 0; // every key's, and a GET's path need not hash it
        }
        byte[] octets = key instanceof byte[] b ? b : String.valueOf(key).getBytes(StandardCharsets.UTF_8);
        // the first point at or after the key's hash (signed order, as the TreeMap of Longs it replaced), else the
        // first point: the ring wraps
        int at = Arrays.binarySearch(points, hash(octets));
        if (at < 0) {
            at = -at - 1;
        }
        return owners[at == points.length ? 0 : at];
    }

    /** {@code host:port}: see {@link #host}. */
    public static String name(InetSocketAddress server) {
        return host(server) + ":" + server.getPort();
    }

    /**
     * The host to name and connect to: as given if unresolved, else the IP address. Not the host name of a resolved
     * address: every address a headless Service's name resolves to carries that same name, and the pods would
     * collapse into one server (and a connection to the name would reach any of them).
     */
    public static String host(InetSocketAddress server) {
        return server.isUnresolved() ? server.getHostString() : server.getAddress().getHostAddress();
    }

    /** FNV-1a over the octets, then MurmurHash3's 64-bit finalizer to spread FNV's weak high bits. */
    static long hash(byte[] octets) {
        long h = 0xcbf29ce484222325L;
        for (byte b : octets) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
