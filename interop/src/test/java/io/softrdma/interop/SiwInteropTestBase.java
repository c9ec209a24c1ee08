package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * One VM boot per test class (siw module parameters are per boot), booted by the first test that
 * needs it and stopped after the last. Each test first assumes that the harness is there (so it is
 * reported as skipped, with the reason, when it is not) and fails when the Java peer is missing.
 */
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
abstract class SiwInteropTestBase {
    private SiwVm vm;
    private Throwable bootFailure;

    /** Directory name of this boot under target/interop-logs. */
    abstract String vmName();

    /** {@code run.sh --siw-param} values for this boot. */
    abstract List<String> siwParams();

    abstract int hostToGuestCases();

    abstract int guestToHostCases();

    /** The VM of this class, booted on first use; skips the test when the harness is unavailable. */
    protected SiwVm vm() throws Exception {
        String why = Harness.unavailable();
        Assumptions.assumeTrue(why == null, () -> "siw VM unavailable: " + why);
        Harness.rpingJarSnapshot(); // fails the test when the jar is missing, before a VM boots
        if (bootFailure != null) {
            throw new AssertionError("the VM '" + vmName() + "' failed to boot for an earlier test", bootFailure);
        }
        if (vm == null) {
            try {
                // A case takes 2 to 10 s; the bound (run.sh kills the VM after it) matters only when
                // this JVM was killed without running its shutdown hook.
                // One forward each way beyond the cases': for a case made again after siw sent an FPDU whose CRC
                // is wrong on the wire (InteropCase.siwSentBadCrc).
                vm = SiwVm.boot(vmName(), siwParams(), hostToGuestCases() + 1, guestToHostCases() + 1,
                        120 + 60 * (hostToGuestCases() + guestToHostCases() + 2));
                Results.vm(vm);
            } catch (Throwable t) {
                bootFailure = t;
                throw t;
            }
        }
        return vm;
    }

    @AfterAll
    void stopVm() {
        if (vm != null) {
            vm.close();
        }
    }

    /** Runs the assertions, records the case in results.md, and adds the logs' tails to a failure. */
    protected static void verify(InteropCase c, ThrowingRunnable assertions) {
        try {
            assertions.run();
            Results.add(c, "pass");
        } catch (AssertionError e) {
            String first = e.getMessage() == null ? "assertion failed" : e.getMessage().lines().findFirst().orElse("");
            Results.add(c, "FAIL: " + first);
            AssertionError withLogs = new AssertionError(e.getMessage() + "\n" + c.details(), e);
            throw withLogs;
        } catch (Exception e) {
            Results.add(c, "ERROR: " + e);
            throw new AssertionError(e + "\n" + c.details(), e);
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** The usual success of a case: both sides exit 0 and report every ping, data verified. */
    protected static void assertAllPingsVerified(InteropCase c) {
        assertThat(c.javaRc).as("Java rping exit code").isEqualTo(0);
        assertThat(c.java.out()).as("Java rping's success line").containsPattern(c.hostToGuest
                ? "(?m)^rping: " + Harness.PINGS + " pings completed, data verified"
                : "(?m)^rping: connection from \\S+: " + Harness.PINGS + " pings served, data verified");
        if (!c.siwExitRace()) { // see InteropCase.siwExitRace: a bug of the guest's rping, not of the peers
            assertThat(c.siwRc).as("siw rping exit code").isEqualTo(0);
        }
        if (c.siwVerbose()) {
            assertThat(c.siwPings()).as("pings the siw rping printed").isEqualTo(Harness.PINGS);
        }
        if (!c.hostToGuest) {
            assertThat(c.siw.output()).as("siw rping -c -V output").doesNotContain("data mismatch");
        }
    }

    /** CRC on or off on both ends: as the Java rping's -d line and siw's debug log say. */
    protected static void assertCrc(InteropCase c, boolean on) {
        assertThat(c.javaCrc()).as("CRC as the Java rping used it (its -d 'connected/accepted' line)")
                .isEqualTo(on ? "on" : "off");
        assertSiwCrc(c, on);
    }

    /** siw's CRC setting for the connection, from its debug log, when the log has it. */
    protected static void assertSiwCrc(InteropCase c, boolean on) {
        String crc = c.siwCrc();
        if (crc == null) {
            System.err.println("[interop] " + c.id + ": no siw 'enter RTS' debug line; siw's CRC not checked");
            return;
        }
        assertThat(crc).as("CRC as siw used it (siw debug 'enter RTS: crc=')").isEqualTo(on ? "y" : "n");
    }
}
