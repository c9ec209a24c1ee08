package io.softrdma.spring.rsocket;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Resolves a name to its addresses: for a Kubernetes headless Service, the A/AAAA records of its ready pods.
 * {@link RdmaRSocketTransports#targets} calls it at every refresh, on a thread that may block. The starter's bean is
 * {@link #system()}; define your own bean to resolve otherwise (a service registry, a fixed list in tests).
 *
 * <p>Thread safety: implementations must be thread-safe.
 */
@FunctionalInterface
public interface DnsResolver {
    /**
     * The addresses of {@code name} now.
     *
     * @param name a host or service name
     * @return its addresses; an empty list is taken as a failure
     * @throws UnknownHostException if the name does not resolve
     */
    List<InetAddress> resolve(String name) throws UnknownHostException;

    /**
     * The JVM's resolver, {@link InetAddress#getAllByName}. It caches answers for {@code networkaddress.cache.ttl}
     * seconds (30 by default): set that security property lower (5, say) for pods to be followed sooner.
     *
     * @return the resolver
     */
    static DnsResolver system() {
        return name -> List.of(InetAddress.getAllByName(name));
    }
}
