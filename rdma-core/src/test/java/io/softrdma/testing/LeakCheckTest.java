package io.softrdma.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** The build's leak guard must be able to fail: a buffer dropped without release is reported. */
class LeakCheckTest {

    @Test
    void detectorRunsAtParanoidLevel() {
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        assertThat(FailingLeakDetector.installed()).isTrue();
    }

    @Test
    void aBufferDroppedWithoutReleaseFailsTheCheck() {
        leakOne();
        assertThatThrownBy(LeakCheck::assertNoLeaks).isInstanceOf(AssertionError.class)
                .hasMessageContaining("Netty buffer leak")
                .hasMessageContaining("leakOne");
    }

    /** A leak in one case of a {@link LeakCheckAfterLastInvocation} method fails the method. */
    @Test
    void aLeakInOneInvocationFailsAMethodCheckedAfterItsLastInvocation() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(DeferredLeakSample.class))
                .configurationParameter(DeferredLeakSample.RUN, "true").build(), listener);
        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getTestsSucceededCount()).as("the invocations themselves").isEqualTo(3);
        List<TestExecutionSummary.Failure> failures = summary.getFailures();
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0).getTestIdentifier().isContainer()).as("the method, not an invocation").isTrue();
        assertThat(failures.get(0).getException()).isInstanceOf(AssertionError.class)
                .hasMessageContaining("Netty buffer leak").hasMessageContaining("leakOne");
    }

    /** Run only by the test above, through its own launcher. */
    @ExtendWith(DeferredLeakSample.OnlyWhenLaunchedByLeakCheckTest.class)
    static class DeferredLeakSample {
        static final String RUN = "io.softrdma.testing.deferredLeakSample";

        @LeakCheckAfterLastInvocation
        @ParameterizedTest(name = "case {0}")
        @ValueSource(ints = {1, 2, 3})
        void leaksInTheSecondCase(int n) {
            if (n == 2) {
                leakOne();
            }
        }

        static final class OnlyWhenLaunchedByLeakCheckTest implements ExecutionCondition {
            @Override
            public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
                return context.getConfigurationParameter(RUN).isPresent()
                        ? ConditionEvaluationResult.enabled("launched by LeakCheckTest")
                        : ConditionEvaluationResult.disabled("a sample that LeakCheckTest launches");
            }
        }
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        leaked.writeInt(42); // recorded access, so the report names this method
    }
}
