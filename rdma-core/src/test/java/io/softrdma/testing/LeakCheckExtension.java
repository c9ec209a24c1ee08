package io.softrdma.testing;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty reported a buffer leak while or before it ran. Registered for every test
 * class through JUnit's extension auto-detection ({@code junit-platform.properties}).
 */
public final class LeakCheckExtension implements BeforeAllCallback, AfterEachCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        if (!FailingLeakDetector.installed()) {
            throw new IllegalStateException("tests must run with -Dio.netty.customResourceLeakDetector="
                    + FailingLeakDetector.class.getName() + " (set by the parent pom's surefire argLine)");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        LeakCheck.assertNoLeaks();
    }
}
