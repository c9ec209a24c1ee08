package io.softrdma.memory.internal;

import io.softrdma.memory.RemoteMemoryException;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The client's connection to one memory server: made on first use, shared by every region and request to that
 * server, and made again — with backoff — by the first use after it ended.
 *
 * <p>Thread safety: any thread; the session is cached by Reactor's {@code cacheInvalidateIf}, which connects once
 * for concurrent subscribers, and connects again for the first subscriber after the session ended (an error is
 * not cached).
 */
final class ServerLink implements Disposable {
    private final InetSocketAddress address;
    private final Mono<RdmaSession> session;
    private final AtomicReference<RdmaSession> latest = new AtomicReference<>();
    private volatile boolean disposed;

    ServerLink(InetSocketAddress address, ClientSettings settings) {
        this.address = address;
        RdmaClient client = settings.rdmaClient().apply(RdmaClient.create())
                .host(HashRing.host(address))
                .port(address.getPort())
                .privateData(Credentials.encode(settings.credential()));
        String name = HashRing.name(address);
        Retry backoff = Retry.backoff(settings.connectAttempts(), settings.firstBackoff())
                .maxBackoff(settings.maxBackoff())
                .filter(e -> !disposed);
        this.session = Mono.defer(() -> disposed
                        ? Mono.error(new IllegalStateException("the RemoteMemory was disposed"))
                        : client.connect())
                .retryWhen(backoff)
                .onErrorMap(e -> new RemoteMemoryException(null, "cannot connect to memory server " + name + ": "
                        + (Exceptions.isRetryExhausted(e) && e.getCause() != null ? e.getCause() : e), e))
                .doOnNext(s -> {
                    latest.set(s);
                    if (disposed) {
                        s.dispose();
                    }
                })
                .cacheInvalidateIf(RdmaSession::isDisposed);
    }

    InetSocketAddress address() {
        return address;
    }

    /** The current session, connecting (with backoff) if there is none. */
    Mono<RdmaSession> session() {
        return session;
    }

    @Override
    public void dispose() {
        disposed = true;
        RdmaSession s = latest.get();
        if (s != null) {
            s.dispose();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }
}
