package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.RdmaSession;
import org.reactivestreams.Publisher;

/**
 * What the auto-configured server does with each accepted session; the session closes when the returned
 * publisher terminates. Without such a bean a session stays open until the peer closes it, and the
 * application reaches it through the one-sided operations the peer performs.
 *
 * <p>The server runs one handler: with several beans of this type, the {@code @Primary} one; with several and
 * none primary, the application fails to start with a message that names them. Handlers are not composed, since
 * a session's {@link RdmaSession#receive()} and {@link RdmaSession#respond} each take one subscriber: combine
 * them into one bean. An {@link RdmaServerCustomizer} that calls {@code handle(...)} overrides the bean.
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
