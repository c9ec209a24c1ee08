package io.softrdma.spring.internal;

import java.util.HashMap;
import java.util.Map;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * What the starter's server lifecycles (the RDMA server, the RSocket server over RDMA, the memory server) share: the
 * bound port published as a property, and a drain that runs off the thread stopping the context. Not API.
 *
 * <p>Thread safety: stateless.
 */
public final class ServerLifecycles {
    private ServerLifecycles() {
    }

    /**
     * Publishes {@code port} as {@code property} in the property source {@code sourceName}, first in
     * {@code environment}, as Boot publishes {@code local.server.port}; nothing when {@code environment} is null.
     */
    public static void publishPort(ConfigurableEnvironment environment, String sourceName, String property, int port) {
        if (environment == null) {
            return;
        }
        PropertySource<?> source = environment.getPropertySources().get(sourceName);
        if (source == null) {
            environment.getPropertySources().addFirst(new MapPropertySource(sourceName,
                    new HashMap<>(Map.of(property, port))));
        } else {
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) source.getSource();
            map.put(property, port);
        }
    }

    /**
     * Runs {@code drain}, then {@code callback}, on a daemon thread named {@code threadName}. Draining waits for
     * sessions, and the context stops the beans of one phase together and waits for their callbacks: a drain on the
     * stopping thread would make the others wait for it.
     */
    public static void drainOffThread(Runnable drain, Runnable callback, String threadName) {
        Thread t = new Thread(() -> {
            try {
                drain.run();
            } finally {
                callback.run();
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }
}
