package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.RdmaSession;
import org.reactivestreams.Publisher;

/**
 * What the auto-configured server does with each accepted session; the session closes when the returned
 * publisher terminates. Without such a bean a session stays open until the peer closes it, and the
 * application reaches it through the one-sided operations the peer performs.
 */
@FunctionalInterface
public interface RdmaSessionHandler {
    /**
     * Serves one session.
     *
     * @param session the accepted session
     * @return completes when the session should close
     */
    Publisher<Void> handle(RdmaSession session);
}
