package io.softrdma.testing;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty reported a buffer leak while or before it ran. Registered for every test
 * class through JUnit's extension auto-detection ({@code junit-platform.properties}). A parameterized
 * method annotated {@link LeakCheckAfterLastInvocation} is checked once, after its last invocation.
 */
public final class LeakCheckExtension implements BeforeAllCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LeakCheckExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!FailingLeakDetector.installed()) {
            throw new IllegalStateException("tests must run with -Dio.netty.customResourceLeakDetector="
                    + FailingLeakDetector.class.getName() + " (set by the parent pom's surefire argLine)");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        boolean deferred = context.getTestMethod().map(LeakCheckExtension::deferred).orElse(false);
        if (deferred && context.getParent().isPresent()) {
            // The parent is the method's template: JUnit closes what its store holds once every
            // invocation has run, and a failure there fails the method.
            context.getParent().get().getStore(NAMESPACE)
                    .computeIfAbsent(DeferredCheck.class, k -> new DeferredCheck(), DeferredCheck.class);
            return;
        }
        LeakCheck.assertNoLeaks();
    }

    private static boolean deferred(Method method) {
        return method.isAnnotationPresent(LeakCheckAfterLastInvocation.class);
    }

    /** The check of a {@link LeakCheckAfterLastInvocation} method, run when its template's store closes. */
    private static final class DeferredCheck implements AutoCloseable {
        @Override
        public void close() {
            LeakCheck.assertNoLeaks();
        }
    }
}
