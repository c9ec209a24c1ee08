package io.softrdma.fuzz;

import io.softrdma.testing.FailingLeakDetector;
import io.softrdma.testing.LeakCheck;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * rdma-core's leak check (Netty's detector at PARANOID, reporting to {@link FailingLeakDetector}; set up by
 * the parent pom's surefire argLine), run once after each fuzz test class rather than after each corpus input
 * as {@code LeakCheckExtension} would: it forces two garbage collections, and every input already meters the
 * buffers it allocates. It catches what the meters cannot see: buffers rdma-core allocates from an allocator
 * of its own.
 */
public final class ClassLeakCheck implements BeforeAllCallback, AfterAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        if (!FailingLeakDetector.installed()) {
            throw new IllegalStateException("fuzz tests must run with -Dio.netty.customResourceLeakDetector="
                    + FailingLeakDetector.class.getName() + " (set by the parent pom's surefire argLine)");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        LeakCheck.assertNoLeaks();
    }
}
