package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * linux-rdma perftest 4.5+0.17 (Debian's, in the siw VM) with {@code -R} against the SoftRDMA perftest sample
 * ({@code samples/perftest/target/perftest.jar}), both ways: the six tools at 64 B and 4 KiB with perftest's default
 * iteration counts, and at 1 MiB with {@code -n 20} (5000 Writes of 1 MiB through qemu's user-mode network would
 * take half an hour here). A case passes when both sides exit 0 with their result line and without an error line,
 * and siw logged no Terminate; the sample itself fails a run when a Send arrives with a length other than the
 * one due. The guest's perftest gets {@code -F}: under TCG its CPU clock estimate is sometimes too noisy
 * ("Correlation coefficient r^2 < 0.9"), and without {@code -F} a _bw test then exits 1 with "Can't produce a
 * report" after a run that went well (seen by hand with {@code -a}).
 *
 * <p>Two boots: siw's defaults serve every case but one; a siw {@code ib_write_lat} client needs
 * {@code peer_to_peer=1}, since that test's server writes first, which an MPA responder may only do after the
 * initiator's first FPDU (RFC 5044 §7.1.2), and only an RFC 6581 ready-to-receive message gives it one.
 */
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
@DisplayName("perftest -R: Linux siw ↔ SoftRDMA perftest sample")
class PerftestInteropTest {
    static final int JAVA_TIMEOUT = 60;
    private static final List<String> TOOLS = List.of("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat",
            "ib_read_lat", "ib_send_lat");
    private static final List<String> SIZES = List.of("64", "4096", "1048576");
    private static final int HOST_TO_GUEST = TOOLS.size() * SIZES.size();
    private static final int GUEST_TO_HOST = TOOLS.size() * SIZES.size();
    private static final Pattern ERROR = Pattern.compile("(?im)^.*(error|failed|unable|bad wc|couldn't).*$");

    private static final String JAVA_CLIENT = "Java client → siw server";
    private static final String SIW_CLIENT = "siw client → Java server";
    private SiwVm defaults;
    private SiwVm peerToPeer;
    private Path jar;
    private final List<String> results = new ArrayList<>();

    static Stream<Arguments> cases() {
        List<Arguments> a = new ArrayList<>();
        for (String tool : TOOLS) {
            for (String size : SIZES) {
                a.add(Arguments.of(tool, size, JAVA_CLIENT));
                a.add(Arguments.of(tool, size, SIW_CLIENT));
            }
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{0} -s {1}: {2}")
    @MethodSource("cases")
    void perftest(String tool, String size, String direction) throws Exception {
        boolean javaClient = direction.equals(JAVA_CLIENT);
        String why = Harness.unavailable();
        Assumptions.assumeTrue(why == null, () -> "siw VM unavailable: " + why);
        Path jar = jar();
        List<String> flags = new ArrayList<>(List.of("-s", size));
        if (size.equals("1048576")) {
            flags.addAll(List.of("-n", "20"));
        }
        boolean needsP2p = tool.equals("ib_write_lat") && !javaClient;
        SiwVm vm = needsP2p ? peerToPeerVm() : defaultsVm();
        String id = tool + "-" + size + (javaClient ? "-java-client" : "-siw-client");
        Path dir = vm.dir.resolve(id);
        Files.createDirectories(dir);
        String flagText = String.join(" ", flags);
        long t0 = System.nanoTime();
        Process java;
        SiwVm.GuestJob siw;
        List<String> javaArgs = new ArrayList<>(List.of(tool, "-R", "--timeout", Integer.toString(JAVA_TIMEOUT)));
        javaArgs.addAll(flags);
        if (javaClient) {
            SiwVm.HostFwd fwd = vm.takeHostFwd();
            String cmd = tool + " -R -F -d siw0 -p " + fwd.guest() + " " + flagText;
            siw = vm.submit(id + ": siw perftest server", cmd + " & p=$!; echo $p > $JOBPID\n"
                    + "siwvm-wait-listen " + fwd.guest() + " 40 || { kill $p; exit 97; }\nwait $p");
            assertThat(siw.awaitOutput("SIW-VM-LISTEN " + fwd.guest(), Duration.ofSeconds(45)))
                    .as("%s: the siw server listens on guest port %d", id, fwd.guest()).isTrue();
            javaArgs.addAll(List.of("-p", Integer.toString(fwd.host()), "127.0.0.1"));
            java = start(jar, javaArgs, dir);
        } else {
            int port = vm.takeGuestFwd();
            javaArgs.addAll(List.of("-p", Integer.toString(port)));
            java = start(jar, javaArgs, dir);
            awaitFile(dir.resolve("java.stdout"), "Waiting for client to connect", Duration.ofSeconds(20));
            siw = vm.submit(id + ": siw perftest client", tool + " -R -F -d siw0 -p " + port + " " + flagText
                    + " 10.0.2.100 & p=$!; echo $p > $JOBPID\nwait $p");
        }
        boolean javaDone = java.waitFor(240, TimeUnit.SECONDS);
        if (!javaDone) {
            Reaper.destroy(java);
        }
        Integer siwRc = siw.awaitExit(Duration.ofSeconds(javaDone ? 60 : 5));
        siw.killIfRunning();
        double seconds = (System.nanoTime() - t0) / 1e9;
        String javaOut = Logs.read(dir.resolve("java.stdout"));
        String javaErr = Logs.read(dir.resolve("java.stderr"));
        String siwOut = siw.output();
        String siwErr = siw.errors();
        Files.writeString(dir.resolve("case.txt"), "java: java -jar perftest.jar " + String.join(" ", javaArgs)
                + "\nsiw: " + siw.script + "\njava rc " + (javaDone ? java.exitValue() : "killed") + ", siw rc "
                + siwRc + ", " + String.format("%.1f s", seconds) + "\n");
        String iters = size.equals("1048576") ? "20" : tool.equals("ib_write_bw") ? "5000" : "1000";
        Pattern line = Pattern.compile("(?m)^ " + size + " +" + iters + " ");
        String verdict = "FAIL";
        try {
            assertThat(javaDone).as("%s: the Java perftest ended within 240 s", id).isTrue();
            assertThat(java.exitValue()).as("%s: Java exit code; stderr: %s", id, javaErr).isZero();
            assertThat(siwRc).as("%s: siw perftest exit code; output: %s %s", id, siwOut, siwErr).isEqualTo(0);
            boolean javaPrints = !(tool.equals("ib_read_lat") && !javaClient);
            boolean siwPrints = !(tool.equals("ib_read_lat") && javaClient);
            if (javaPrints) {
                assertThat(javaOut).as("%s: the Java side's result line", id).containsPattern(line);
            }
            if (siwPrints) {
                assertThat(siwOut).as("%s: siw's result line", id).containsPattern(line);
            }
            assertThat(javaErr).as("%s: Java stderr", id).doesNotContainPattern(ERROR);
            assertThat(siwOut + siwErr).as("%s: siw perftest's output", id).doesNotContainPattern(ERROR);
            assertThat(siw.klog()).as("%s: siw's kernel log", id).doesNotContain("init TERM");
            verdict = "pass";
        } finally {
            synchronized (results) {
                results.add(String.format("| %s | %s | %s | %s | %.1f s |", tool, flagText,
                        direction, verdict, seconds));
            }
        }
    }

    private static Process start(Path jar, List<String> args, Path dir) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Harness.javaBin(), "-jar", jar.toString()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectOutput(dir.resolve("java.stdout").toFile())
                .redirectError(dir.resolve("java.stderr").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        return Reaper.register(p);
    }

    private static void awaitFile(Path file, String text, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !Logs.read(file).contains(text)) {
            Logs.sleep(50);
        }
        assertThat(Logs.read(file)).as("the Java server's banner in %s", file).contains(text);
    }

    /** The sample's jar, copied once so that every case runs the same build. */
    private synchronized Path jar() throws IOException {
        if (jar == null) {
            Path built = Path.of(System.getProperty("interop.perftestJar",
                    Harness.REPO_ROOT.resolve("samples/perftest/target/perftest.jar").toString()));
            assertThat(built).as("the perftest sample's jar: build it first (./mvnw -B -o -DskipTests package"
                    + " -pl samples/perftest -am), or point -Dinterop.perftestJar at it").isRegularFile();
            Files.createDirectories(Harness.LOG_DIR);
            jar = Harness.LOG_DIR.resolve("perftest.jar");
            Files.copy(built, jar, StandardCopyOption.REPLACE_EXISTING);
        }
        return jar;
    }

    private synchronized SiwVm defaultsVm() throws IOException {
        if (defaults == null) {
            defaults = SiwVm.boot("perftest-siw-defaults", List.of(), HOST_TO_GUEST, GUEST_TO_HOST, 900);
        }
        return defaults;
    }

    private synchronized SiwVm peerToPeerVm() throws IOException {
        if (peerToPeer == null) {
            peerToPeer = SiwVm.boot("perftest-siw-p2p", List.of("peer_to_peer=1"), 1, SIZES.size(), 300);
        }
        return peerToPeer;
    }

    @AfterAll
    void stopVms() throws IOException {
        if (defaults != null) {
            defaults.close();
        }
        if (peerToPeer != null) {
            peerToPeer.close();
        }
        if (!results.isEmpty()) {
            Files.createDirectories(Harness.LOG_DIR);
            Files.writeString(Harness.LOG_DIR.resolve("perftest-results.md"),
                    "| tool | flags | direction | result | time |\n|---|---|---|---|---|\n" + String.join("\n", results)
                            + "\n");
        }
    }
}
