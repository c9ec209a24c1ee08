package io.softrdma.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A Netty leak detector that records every leak report so that tests can fail on it, instead of
 * leaving an ERROR line in a log that a green build ignores.
 *
 * <p>Installed for every test JVM by the parent pom:
 * {@code -Dio.netty.customResourceLeakDetector=io.softrdma.testing.FailingLeakDetector} with
 * {@code -Dio.netty.leakDetection.level=PARANOID}. {@link LeakCheckExtension} checks it after each test.
 */
public class FailingLeakDetector<T> extends ResourceLeakDetector<T> {
    private static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    @SuppressWarnings("deprecation")
    public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add("LEAK: " + resourceType + " was released only by the garbage collector." + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add("LEAK: " + resourceType + " was released only by the garbage collector (no access records).");
        super.reportUntracedLeak(resourceType);
    }

    /** Whether this JVM runs with this detector (the parent pom's surefire configuration). */
    public static boolean installed() {
        return FailingLeakDetector.class.getName().equals(System.getProperty("io.netty.customResourceLeakDetector"));
    }

    /** Removes and returns every leak reported so far. */
    public static List<String> drain() {
        List<String> out = new ArrayList<>();
        for (String s; (s = LEAKS.poll()) != null; ) {
            out.add(s);
        }
        return out;
    }
}
