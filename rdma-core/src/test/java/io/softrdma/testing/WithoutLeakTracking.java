package io.softrdma.testing;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Turns Netty's leak tracking off for one test class and back on after it: for the tests that must
 * run the production paths, which leak-tracking wrappers turn aside (and whose allocation they would
 * add to). Buffers allocated meanwhile are not tracked, so such a class should test little else.
 */
public final class WithoutLeakTracking implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(WithoutLeakTracking.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put("level", ResourceLeakDetector.getLevel());
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ResourceLeakDetector.setLevel(
                context.getStore(NAMESPACE).get("level", ResourceLeakDetector.Level.class));
    }
}
