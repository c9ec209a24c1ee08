package io.softrdma.samples.remotememory;

import io.softrdma.reactive.LocalRegion;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.spring.autoconfigure.RdmaSessionHandler;
import io.softrdma.verbs.Access;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Lends the {@link SharedRegion} to every RDMA session: registers it in the session's protection domain with
 * remote read and write access, answers the request {@code handle} with its {@link RegionHandle}, keeps the handle
 * for the HTTP endpoint (by the client's address), and invalidates the registration when the session ends.
 */
public final class RegionService implements RdmaSessionHandler {
    private static final Log log = LogFactory.getLog(RegionService.class);

    private final SharedRegion region;
    private final Map<String, RegionHandle> handles = new ConcurrentHashMap<>();

    /**
     * Lends {@code region}.
     *
     * @param region the memory
     */
    public RegionService(SharedRegion region) {
        this.region = region;
    }

    @Override
    public Publisher<Void> handle(RdmaSession session) {
        // The registration holds its own reference to the memory until it is disposed.
        LocalRegion lent = session.register(region.memory(), Access.LOCAL_WRITE, Access.REMOTE_READ,
                Access.REMOTE_WRITE);
        RegionHandle handle = RegionHandle.of(lent.remote());
        String peer = address(session.connection().remoteAddress());
        handles.put(peer, handle);
        log.info("lent " + region.length() + " octets to " + peer + " as STag " + String.format("0x%08x", handle.stag()));
        session.respond(request -> {
            String what = request.toString(StandardCharsets.US_ASCII);
            return "handle".equals(what) ? Mono.just(handle.encode())
                    : Mono.error(new IllegalArgumentException("unknown request '" + what + "' (ask for: handle)"));
        }, 4);
        return session.onDispose().doFinally(s -> {
            handles.remove(peer);
            lent.dispose(); // invalidates the STag: the client can no longer touch the memory
            log.info("took back the region lent to " + peer);
        });
    }

    /**
     * The handles lent now, by client address.
     *
     * @return a snapshot
     */
    public Map<String, RegionHandle> handles() {
        return Map.copyOf(handles);
    }

    static String address(java.net.SocketAddress a) {
        if (a instanceof java.net.InetSocketAddress i) {
            return i.getAddress().getHostAddress() + ":" + i.getPort();
        }
        return String.valueOf(a);
    }

    /**
     * The handle lent to the client at {@code peer} ({@code host:port} as the service sees it).
     *
     * @param peer the client's address
     * @return the handle, or null
     */
    public RegionHandle handleFor(String peer) {
        return handles.get(peer);
    }
}
