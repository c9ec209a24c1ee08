package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The NFS/RDMA sample ({@code samples/nfs-rdma/target/nfs-rdma.jar}, an NFSv4.0 client on rdma-rpc's
 * RpcRdmaClient) against the Linux kernel NFS server's RPC-over-RDMA transport (svcrdma) on siw, in one boot of the
 * siw VM ({@link NfsVm}): NULL calls, and READs of {@code data.bin} (1 MiB, byte i = i*7 mod 251) whose data
 * svcrdma RDMA-Writes into the client's Write chunks, with MPA CRC on and off, and with remote invalidation (RFC
 * 8797 R flag) on and off. Then WRITEs: 1 MiB and 16 MiB files copied to the export with MPA CRC on and off, each
 * WRITE's data in a Read chunk that svcrdma pulls with RDMA Reads from the sample's memory, the file read back
 * with READ and compared octet for octet; a write below the inline threshold that goes inline; READDIR and
 * GETATTR of what was written; and last, the guest kernel's log.
 *
 * <p>Each case runs the jar as a process, as a user would, and checks what it printed and the file it wrote.
 * Logs: {@code target/interop-logs/nfs-rdma/} (the VM's serial log with nfsd's kernel messages, each case's
 * stdout/stderr and output file, {@code results.md}).
 *
 * <p>Why this class is long: its cases share one VM boot and run in order (later ones read what earlier ones wrote),
 * so they live in one class, each a few assertions over what the sample printed.
 */
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
@DisplayName("NFS/RDMA sample → Linux nfsd (svcrdma) on siw")
class NfsRdmaInteropTest {
    static final String VM_NAME = "nfs-rdma";
    static final String DATA = "/data.bin";
    static final int DATA_SIZE = 1 << 20;
    static final String DATA_MD5 = "26e2437d8c01f4bceded84f9309ac88f";
    /** The sample's own bound on connecting and on each call. */
    static final int SAMPLE_TIMEOUT = 30;
    static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(90);

    private NfsVm vm;
    private Throwable bootFailure;
    private final List<String> rows = new ArrayList<>();
    /** The siw split-trailer CRC errors the WRITE cases met and tried again (the kernel log check allows these). */
    private final List<String> knownSiwCrcErrors = new ArrayList<>();
    /**
     * How many times a WRITE case may run when siw's split-trailer bug ends it. Each 16 MiB CRC-on try meets it with
     * a chance that grows with the machine's load (CI on 2 busy cores: five tries in a row once); a case whose every
     * try ended in it is aborted, not failed, since each of those ends is proven to be siw's. {@code
     * -Dinterop.siwCrcTries=1} shows that path.
     */
    private static final int SIW_CRC_BUG_TRIES = Integer.getInteger("interop.siwCrcTries", 8);
    /** The remote files of WRITE cases aborted because siw's split-trailer bug ended every try. */
    private final List<String> unwritten = new ArrayList<>();

    /** The VM, booted on first use; skips the test when the harness is unavailable. */
    private NfsVm vm() throws Exception {
        String why = Harness.unavailable();
        Assumptions.assumeTrue(why == null, () -> "siw VM unavailable: " + why);
        String nfs = NfsVm.unavailable();
        Assumptions.assumeTrue(nfs == null, () -> "NFS/RDMA guest unavailable: " + nfs);
        JavaNfsRdma.jarSnapshot(); // fails the test when the jar is missing, before a VM boots
        if (bootFailure != null) {
            throw new AssertionError("the NFS VM failed to boot for an earlier test", bootFailure);
        }
        if (vm == null) {
            try {
                vm = NfsVm.boot(VM_NAME, 600);
                rows.add(0, String.format(Locale.ROOT, "VM: `%s`, export in place after %.1f s%n", vm.bootCommand,
                        vm.bootSeconds));
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
            System.err.println("[interop] NFS VM stopped (run.sh --stop " + vm.runDir + ")");
        }
    }

    /** Runs the sample against the VM with {@code args} (host and port added). */
    private JavaNfsRdma sample(String name, String... args) throws Exception {
        NfsVm v = vm();
        List<String> all = new ArrayList<>(List.of("--host", "127.0.0.1", "--port", Integer.toString(v.hostPort),
                "--timeout", Integer.toString(SAMPLE_TIMEOUT)));
        all.addAll(List.of(args));
        System.err.println("[interop] nfs-rdma " + name + ": " + String.join(" ", args));
        return JavaNfsRdma.run(v.dir.resolve(name), name, all, PROCESS_TIMEOUT);
    }

    private Path outFile(String name) {
        return vm.dir.resolve(name).resolve(name + ".bin");
    }

    @Test
    @Order(1)
    @DisplayName("1. NULL x3")
    void nullCalls() throws Exception {
        JavaNfsRdma r = sample("null3", "--null", "3");
        verify("1", "NULL x3", r, () -> {
            assertSucceeded(r);
            assertThat(Logs.count(r.out(), "^nfs-rdma: NULL [123]: \\d+ µs$")).as("a line per NULL call").isEqualTo(3);
            assertThat(r.number(JavaNfsRdma.NULLS, 1)).as("NULL calls OK").isEqualTo(3);
            return String.format(Locale.ROOT, "3 NULL OK, latency min/median/max %d/%d/%d µs",
                    r.number(JavaNfsRdma.NULLS, 2), r.number(JavaNfsRdma.NULLS, 3), r.number(JavaNfsRdma.NULLS, 4));
        });
    }

    @Test
    @Order(2)
    @DisplayName("2. READ data.bin whole, CRC off, remote invalidation on")
    void wholeCrcOffInvalidationOn() throws Exception {
        wholeFile("2", "read-crc-off-inv", false, true);
    }

    @Test
    @Order(3)
    @DisplayName("3. READ data.bin whole, CRC on, remote invalidation on")
    void wholeCrcOnInvalidationOn() throws Exception {
        wholeFile("3", "read-crc-on-inv", true, true);
    }

    @Test
    @Order(4)
    @DisplayName("4. READ data.bin whole, CRC off, --no-inv")
    void wholeCrcOffInvalidationOff() throws Exception {
        wholeFile("4", "read-crc-off-noinv", false, false);
    }

    @Test
    @Order(5)
    @DisplayName("5. READ data.bin whole, CRC on, --no-inv, --credits 128")
    void wholeCrcOnInvalidationOffCredits128() throws Exception {
        wholeFile("5", "read-crc-on-noinv-credits128", true, false, "--credits", "128");
    }

    /**
     * The whole file in 64 KiB READs: 16 calls, pipelined. With R=1 Linux answers every READ with a Send with
     * Invalidate of the chunk's STag; with R=0 with a plain Send, and the client invalidates its STag itself.
     */
    private void wholeFile(String id, String name, boolean crc, boolean invalidation, String... extra)
            throws Exception {
        vm();
        List<String> args = new ArrayList<>(List.of("--read", DATA, "--out", outFile(name).toString(), "--crc",
                crc ? "on" : "off"));
        if (!invalidation) {
            args.add("--no-inv");
        }
        args.addAll(List.of(extra));
        boolean credits128 = List.of(extra).contains("--credits");
        JavaNfsRdma r = sample(name, args.toArray(String[]::new));
        String title = "READ " + DATA + " whole, CRC " + (crc ? "on" : "off") + ", R=" + (invalidation ? 1 : 0)
                + (credits128 ? ", --credits 128" : "");
        verify(id, title, r, () -> {
            assertSucceeded(r);
            assertThat(r.find(JavaNfsRdma.CONNECTED, 1)).as("the connection line").contains("CRC " + (crc ? "on"
                    : "off")).contains("this side R=" + (invalidation ? 1 : 0));
            assertRead(r, DATA_SIZE, 16, true);
            assertThat(r.find(JavaNfsRdma.MD5, 1)).as("md5 printed").isEqualTo(DATA_MD5);
            assertThat(md5(outFile(name))).as("md5 of the file written").isEqualTo(DATA_MD5);
            assertPattern(outFile(name), 0, DATA_SIZE);
            long remote = r.number(JavaNfsRdma.CREDITS, 3);
            long local = r.number(JavaNfsRdma.CREDITS, 4);
            if (invalidation) {
                assertThat(remote).as("remote invalidations (Send with Invalidate, one per READ)").isEqualTo(16);
                assertThat(local).as("local invalidations").isZero();
            } else {
                assertThat(remote).as("remote invalidations with R=0").isZero();
                assertThat(local).as("local invalidations (one per READ)").isEqualTo(16);
            }
            long credits = r.number(JavaNfsRdma.CREDITS, 1);
            // svcrdma grants 64 (its max_requests) in every reply; the client uses up to its own receive buffers
            // (--credits, 32 by default, or 128).
            assertThat(credits).as("credits granted").isEqualTo(64);
            assertThat(r.number(JavaNfsRdma.CREDITS, 2)).as("credits used").isEqualTo(credits128 ? 64 : 32);
            return figures(r);
        });
    }

    @Test
    @Order(6)
    @DisplayName("6. READ data.bin whole in 256 KiB READs (above svcrdma's 128 KiB max_block_size)")
    void wholeInReadsLargerThanTheServersMaximum() throws Exception {
        vm();
        Path out = outFile("read-chunk256k");
        JavaNfsRdma r = sample("read-chunk256k", "--read", DATA, "--chunk-size", "262144", "--out", out.toString());
        verify("6", "READ whole, --chunk-size 262144: svcrdma returns 131072 a READ, the rest is re-read", r, () -> {
            assertSucceeded(r);
            assertRead(r, DATA_SIZE, 8, true);
            assertThat(md5(out)).isEqualTo(DATA_MD5);
            assertThat(r.number(JavaNfsRdma.CREDITS, 3)).as("remote invalidations").isEqualTo(8);
            return figures(r);
        });
    }

    @Test
    @Order(7)
    @DisplayName("7. READ 128 KiB at offset 256 KiB")
    void rangeAtAnOffset() throws Exception {
        vm();
        Path out = outFile("read-128k-at-256k");
        JavaNfsRdma r = sample("read-128k-at-256k", "--read", DATA, "--offset", "262144", "--count", "131072",
                "--out", out.toString());
        verify("7", "READ offset 262144 count 131072", r, () -> {
            assertSucceeded(r);
            assertRead(r, 131072, 2, false);
            assertThat(Files.size(out)).isEqualTo(131072);
            assertPattern(out, 262144, 131072);
            assertThat(r.find(JavaNfsRdma.MD5, 1)).isEqualTo(md5(out));
            return figures(r);
        });
    }

    @Test
    @Order(8)
    @DisplayName("8. short READ at EOF: offset 1047575 → 1001 octets")
    void shortReadAtEndOfFile() throws Exception {
        vm();
        Path out = outFile("read-eof");
        JavaNfsRdma r = sample("read-eof", "--read", DATA, "--offset", "1047575", "--count", "65536", "--out",
                out.toString(), "-v");
        verify("8", "READ offset 1047575 count 65536 → 1001 octets, eof", r, () -> {
            assertSucceeded(r);
            assertRead(r, 1001, 1, true);
            assertThat(r.out()).contains("nfs-rdma: READ offset 1047575 count 65536: 1001 octets, eof 1, reply Send"
                    + " with Invalidate");
            assertThat(Files.size(out)).isEqualTo(1001);
            assertPattern(out, 1047575, 1001);
            return figures(r);
        });
    }

    @Test
    @Order(9)
    @DisplayName("9. a file that is not there: NFS4ERR_NOENT, exit 1")
    void noSuchFile() throws Exception {
        JavaNfsRdma r = sample("read-noent", "--read", "/no-such-file");
        verify("9", "READ /no-such-file (expected failure)", r, () -> {
            assertThat(r.rc).as("exit code").isEqualTo(1);
            assertThat(r.err()).as("stderr").startsWith("nfs-rdma: error: ").contains("LOOKUP 'no-such-file' failed"
                    + " with NFS4ERR_NOENT (2)").hasLineCount(1);
            return r.err().trim();
        });
    }

    /**
     * The anonymous (all-zeros) stateid: svcrdma's nfsd refuses it with NFS4ERR_GRACE during its grace period
     * (90 s from nfsd's start, which this case is normally well inside); after it, the READ succeeds. Either is
     * right; the case checks the sample reports whichever it got correctly.
     */
    @Test
    @Order(10)
    @DisplayName("10. READ with the zero stateid: NFS4ERR_GRACE during the grace period")
    void zeroStateid() throws Exception {
        vm();
        Path out = outFile("read-zero-stateid");
        JavaNfsRdma r = sample("read-zero-stateid", "--read", DATA, "--stateid", "zero", "--count", "65536", "--out",
                out.toString());
        verify("10", "READ with --stateid zero", r, () -> {
            if (r.rc != null && r.rc == 1) {
                assertThat(r.err()).as("stderr").contains("READ failed with NFS4ERR_GRACE (10013)")
                        .contains("--stateid ones").hasLineCount(1);
                return "in grace: " + r.err().trim();
            }
            assertSucceeded(r);
            assertRead(r, 65536, 1, false);
            assertPattern(out, 0, 65536);
            return "after grace: " + figures(r);
        });
    }

    @Test
    @Order(11)
    @DisplayName("11. WRITE 1 MiB by Read chunks, CRC off; READ it back")
    void write1MiBCrcOff() throws Exception {
        writeAndReadBack("11", "write-1m-crc-off", 1 << 20, false);
    }

    @Test
    @Order(12)
    @DisplayName("12. WRITE 1 MiB by Read chunks, CRC on; READ it back")
    void write1MiBCrcOn() throws Exception {
        writeAndReadBack("12", "write-1m-crc-on", 1 << 20, true);
    }

    @Test
    @Order(13)
    @DisplayName("13. WRITE 16 MiB by Read chunks, CRC off; READ it back")
    void write16MiBCrcOff() throws Exception {
        writeAndReadBack("13", "write-16m-crc-off", 16 << 20, false);
    }

    @Test
    @Order(14)
    @DisplayName("14. WRITE 16 MiB by Read chunks, CRC on; READ it back")
    void write16MiBCrcOn() throws Exception {
        writeAndReadBack("14", "write-16m-crc-on", 16 << 20, true);
    }

    /**
     * Copies a file of {@code size} random octets (seeded: the same every run) to the export with {@code --write},
     * in 64 KiB WRITEs. Each WRITE call is far above the 4096-octet send inline threshold, so its data goes in a
     * Read chunk (RFC 8166 §3.4.5) and svcrdma pulls it with RDMA Reads: the sample counts the Read Requests it
     * served and the octets it sent back in Read Responses, which must be the whole file. COMMIT's verifier must
     * match the WRITEs' and CLOSE's GETATTR the size. Then {@code --read} brings the file back and it is compared
     * octet for octet.
     */
    private void writeAndReadBack(String id, String name, int size, boolean crc) throws Exception {
        vm();
        Path local = vm.dir.resolve(name).resolve(name + ".local");
        Files.createDirectories(local.getParent());
        byte[] content = new byte[size];
        new Random(size * 31L + (crc ? 1 : 0)).nextBytes(content);
        Files.write(local, content);
        String remote = "/" + name + ".bin";
        String[] args = {"--write", local.toString(), "--to", remote, "--crc", crc ? "on" : "off"};
        // Linux siw misreads an MPA CRC split across two TCP segments (see SiwCrcErrors): a try that siw ended for
        // that, and only that, is made again (up to SIW_CRC_BUG_TRIES in all), and each is reported.
        JavaNfsRdma w = sample(name, args);
        List<String> siwBugs = new ArrayList<>();
        for (String bug = crc ? siwSplitTrailerCrcError(w) : null; bug != null; bug = siwSplitTrailerCrcError(w)) {
            siwBugs.add(bug);
            if (siwBugs.size() == SIW_CRC_BUG_TRIES) {
                abortForSiw(id, name, remote, size, w, siwBugs);
            }
            w = sample(name + "-again" + (siwBugs.size() == 1 ? "" : "-" + siwBugs.size()), args);
        }
        String siwBug = siwBugs.isEmpty() ? null : String.join("; ", siwBugs);
        JavaNfsRdma written = w;
        Path back = vm.dir.resolve(name + "-back").resolve(name + "-back.bin");
        String title = "WRITE " + size + " octets to " + remote + ", CRC " + (crc ? "on" : "off") + "; READ back";
        verify(id, title, written, () -> {
            assertSucceeded(written);
            String md5 = md5(local);
            long calls = size / 65536;
            assertThat(written.find(JavaNfsRdma.CONNECTED, 1)).as("the connection line").contains("CRC " + (crc ? "on"
                    : "off")).contains("inline thresholds: send 4096");
            assertThat(written.find(JavaNfsRdma.OPENED, 3)).as("OPEN of a new open-owner (NFSv4.0)")
                    .isEqualTo("confirmed with OPEN_CONFIRM");
            assertThat(written.number(JavaNfsRdma.WROTE, 1)).as("octets written").isEqualTo(size);
            assertThat(written.number(JavaNfsRdma.WROTE, 4)).as("WRITE calls").isEqualTo(calls);
            assertThat(written.number(JavaNfsRdma.WROTE, 5)).as("WRITEs whose data went by Read chunk").isEqualTo(calls);
            // svcrdma pulls each chunk with at least one RDMA Read; what this side sent back is the whole file.
            assertThat(written.number(JavaNfsRdma.READ_REQUESTS, 1)).as("RDMA Read Requests the server sent")
                    .isGreaterThanOrEqualTo(calls);
            assertThat(written.number(JavaNfsRdma.READ_REQUESTS, 2)).as("octets in Read Responses").isEqualTo(size);
            assertThat(written.number(JavaNfsRdma.COMMITTED, 2)).as("size after CLOSE").isEqualTo(size);
            assertThat(written.find(JavaNfsRdma.MD5, 1)).as("md5 of what was sent").isEqualTo(md5);
            assertThat(written.number(JavaNfsRdma.CREDITS, 3)).as("replies that invalidated the chunk (R=1)")
                    .isEqualTo(calls);

            JavaNfsRdma r = sample(name + "-back", "--read", remote, "--out", back.toString(), "--crc",
                    crc ? "on" : "off");
            assertSucceeded(r);
            assertRead(r, size, calls, true);
            assertThat(r.find(JavaNfsRdma.MD5, 1)).as("md5 read back").isEqualTo(md5);
            long mismatch = Files.mismatch(local, back);
            assertThat(mismatch).as("first octet where the file read back differs from the one written (-1:"
                    + " none)").isEqualTo(-1L);
            String figures = String.format(Locale.ROOT, "%s octets in %s WRITEs (%s by Read chunk), %s RDMA Read"
                    + " Requests served (%s octets), %s s, %s MB/s; read back in %s READs, identical, md5 %s",
                    written.find(JavaNfsRdma.WROTE, 1), written.find(JavaNfsRdma.WROTE, 4), written.find(JavaNfsRdma.WROTE, 5),
                    written.find(JavaNfsRdma.READ_REQUESTS, 1), written.find(JavaNfsRdma.READ_REQUESTS, 2),
                    written.find(JavaNfsRdma.WROTE, 7), written.find(JavaNfsRdma.WROTE, 8), r.find(JavaNfsRdma.READ, 3), md5)
                    + (siwBug == null ? "" : "; " + siwBugs.size() + " earlier tr" + (siwBugs.size() == 1 ? "y" : "ies")
                            + " met siw's split-CRC bug (" + siwBug + ") and " + (siwBugs.size() == 1 ? "was" : "were")
                            + " made again");
            Files.delete(back); // 16 MiB each: what a passing case leaves is its logs
            Files.delete(local);
            return figures;
        });
    }

    /**
     * Ends a WRITE case whose every try siw ended for its split-trailer bug: the case is recorded and aborted (JUnit
     * reports it skipped, with the lines), since nothing in it shows a fault on SoftRDMA's side, and the later cases
     * stop expecting its file.
     */
    private void abortForSiw(String id, String name, String remote, int size, JavaNfsRdma last, List<String> bugs) {
        unwritten.add(remote.substring(1));
        String why = "all " + bugs.size() + " tries of " + name + " (" + size + " octets, CRC on) met Linux siw's"
                + " split-trailer CRC bug (docs/interop.md, NFS finding 4), each proven by its kernel log line: "
                + String.join("; ", bugs);
        row(id, "WRITE " + size + " octets to " + remote + ", CRC on; READ back", shown(last), last,
                "aborted (siw)", why);
        Assumptions.abort(why);
    }

    /**
     * When siw ended a CRC-on write, the {@code siw: crc error} line the guest logged for it if it shows Linux siw's
     * split-trailer bug ({@link SiwCrcErrors}), else null. siw ends such a connection with a Terminate for the CRC
     * error, or (seen once) closes it without one: either way the kernel log's line, unseen before, is the proof.
     */
    private String siwSplitTrailerCrcError(JavaNfsRdma w) {
        if (w.rc == null || w.rc != 1
                || !(w.err().contains("CRC_ERROR") || w.err().contains("closed without a Terminate"))) {
            return null;
        }
        long deadline = System.nanoTime() + 6_000_000_000L; // the guest prints its kernel log every 2 s
        while (System.nanoTime() < deadline) {
            List<String> lines = SiwCrcErrors.find(vm.kernelLogAfterExport());
            for (String line : lines) {
                if (SiwCrcErrors.isSplitTrailer(line) && !knownSiwCrcErrors.contains(line)) {
                    knownSiwCrcErrors.add(line);
                    System.err.println("[interop] siw split-trailer CRC bug: " + line + "; writing again");
                    return line.trim();
                }
            }
            Logs.sleep(200);
        }
        return null;
    }

    @Test
    @Order(15)
    @DisplayName("15. WRITE 3000 octets: below the inline threshold it goes inline, no Read chunk")
    void smallWriteGoesInline() throws Exception {
        vm();
        Path local = randomLocalFile("write-small", 3000);
        JavaNfsRdma w = sample("write-small", "--write", local.toString(), "--to", "/write-small.bin", "-v");
        verify("15", "WRITE 3000 octets (fits the 4096-octet inline threshold); READ back", w, () -> {
            assertSucceeded(w);
            assertThat(w.number(JavaNfsRdma.WROTE, 4)).as("WRITE calls").isEqualTo(1);
            assertThat(w.number(JavaNfsRdma.WROTE, 6)).as("WRITEs inline").isEqualTo(1);
            assertThat(w.number(JavaNfsRdma.READ_REQUESTS, 1)).as("RDMA Read Requests").isZero();
            assertThat(w.out()).contains("nfs-rdma: WRITE offset 0 count 3000: 3000 octets, unstable, data inline");
            assertReadsBackIdentical("write-small-back", "/write-small.bin", local);
            return "1 WRITE inline, 0 RDMA Read Requests; read back identical, md5 " + md5(local);
        });
    }

    /**
     * The same small kind of write with {@code --write-chunks always}, at an odd length: the Read chunk carries
     * 3001 octets and no XDR roundup (RFC 8166 §3.4.5.2), and svcrdma must put the roundup back itself.
     */
    @Test
    @Order(16)
    @DisplayName("16. WRITE 3001 octets by Read chunk (--write-chunks always): an odd length, no roundup sent")
    void smallOddWriteByReadChunk() throws Exception {
        vm();
        Path local = randomLocalFile("write-odd", 3001);
        JavaNfsRdma w = sample("write-odd", "--write", local.toString(), "--to", "/write-odd.bin", "--write-chunks",
                "always", "-v");
        verify("16", "WRITE 3001 octets by Read chunk, no roundup; READ back", w, () -> {
            assertSucceeded(w);
            assertThat(w.number(JavaNfsRdma.WROTE, 5)).as("WRITEs by Read chunk").isEqualTo(1);
            assertThat(w.number(JavaNfsRdma.READ_REQUESTS, 1)).as("RDMA Read Requests").isEqualTo(1);
            assertThat(w.number(JavaNfsRdma.READ_REQUESTS, 2)).as("octets in Read Responses: no roundup")
                    .isEqualTo(3001);
            assertThat(w.out()).contains("nfs-rdma: WRITE offset 0 count 3001: 3001 octets, unstable, data by Read"
                    + " chunk, reply Send with Invalidate");
            assertReadsBackIdentical("write-odd-back", "/write-odd.bin", local);
            return "1 WRITE by Read chunk, 1 RDMA Read Request of 3001 octets; read back identical, md5 " + md5(local);
        });
    }

    /** A file of {@code size} random octets (seeded by the size) in the case's directory {@code name}. */
    private Path randomLocalFile(String name, int size) throws IOException {
        Path local = vm.dir.resolve(name).resolve(name + ".local");
        Files.createDirectories(local.getParent());
        byte[] content = new byte[size];
        new Random(size).nextBytes(content);
        Files.write(local, content);
        return local;
    }

    /** READs {@code remote} with the sample (case {@code name}) and checks it has {@code local}'s octets. */
    private void assertReadsBackIdentical(String name, String remote, Path local) throws Exception {
        Path back = outFile(name);
        JavaNfsRdma r = sample(name, "--read", remote, "--out", back.toString());
        assertSucceeded(r);
        assertThat(Files.mismatch(local, back)).as("first differing octet (-1: none)").isEqualTo(-1L);
    }

    @Test
    @Order(17)
    @DisplayName("17. READDIR / and GETATTR of a written file")
    void readdirAndGetattr() throws Exception {
        // A WRITE case that siw's bug aborted left no file of the size it names (or a part of one): leave it out.
        String big = unwritten.contains("write-16m-crc-on.bin") ? "write-16m-crc-off.bin" : "write-16m-crc-on.bin";
        JavaNfsRdma ls = sample("readdir", "--ls", "/");
        JavaNfsRdma stat = sample("getattr", "--stat", "/" + big);
        verify("17", "READDIR / lists the files written; GETATTR gives the size", ls, () -> {
            assertSucceeded(ls);
            assertSucceeded(stat);
            java.util.Map<String, String> entries = new java.util.TreeMap<>();
            java.util.regex.Matcher m = JavaNfsRdma.ENTRY.matcher(ls.out());
            while (m.find()) {
                entries.put(m.group(1), m.group(2) + " " + m.group(3));
            }
            java.util.Map<String, String> expected = new java.util.TreeMap<>(java.util.Map.of("data.bin", "file "
                    + DATA_SIZE, "write-1m-crc-off.bin", "file " + (1 << 20), "write-1m-crc-on.bin", "file "
                    + (1 << 20), "write-16m-crc-off.bin", "file " + (16 << 20), "write-16m-crc-on.bin", "file "
                    + (16 << 20), "write-small.bin", "file 3000", "write-odd.bin", "file 3001"));
            unwritten.forEach(expected::remove);
            assertThat(entries).containsAllEntriesOf(expected);
            assertThat(stat.out()).containsPattern("nfs-rdma: /" + big + ": filehandle [0-9a-f]+, type file,"
                    + " size " + (16 << 20));
            return entries.size() + " entries: " + entries + (unwritten.isEmpty() ? "" : "; not expected (their"
                    + " WRITE cases were aborted for siw's bug): " + unwritten);
        });
    }

    @Test
    @Order(18)
    @DisplayName("18. the guest kernel logged no warning and no error")
    void guestKernelLogIsClean() throws Exception {
        NfsVm v = vm();
        Logs.sleep(2500); // the guest prints its kernel log every 2 s
        String full = v.kernelLogAfterExport();
        // The lines of siw's split-trailer bug that a WRITE case met and made again are known; any other is not.
        String log = full.lines().filter(l -> knownSiwCrcErrors.stream().noneMatch(l::contains))
                .collect(java.util.stream.Collectors.joining("\n"));
        verify("18", "guest kernel log after the export", null, () -> {
            assertThat(v.isRunning()).as("the VM still runs").isTrue();
            // siw reports a bad MPA CRC as "siw: crc error"; svcrdma and nfsd name failures "error" or "failed".
            assertThat(log).as("guest serial log after the export").doesNotContainPattern(
                    "WARNING:|BUG:|Oops|Call Trace|general protection|(?i)\\berror\\b|(?i)\\bfailed\\b");
            long lines = log.lines().filter(l -> !l.isBlank()).count();
            return lines + " lines, no WARNING/BUG/Oops/Call Trace/error/failed" + (knownSiwCrcErrors.isEmpty() ? ""
                    : "; besides " + knownSiwCrcErrors.size() + " siw split-trailer CRC error(s) the WRITE cases met: "
                            + knownSiwCrcErrors);
        });
    }

    // ---- checks ----

    private static void assertSucceeded(JavaNfsRdma r) {
        assertThat(r.rc).as("nfs-rdma exit code (null: it hung and was killed)").isEqualTo(0);
        assertThat(r.err()).as("nfs-rdma stderr").doesNotContain("nfs-rdma: error").doesNotContain("Exception");
    }

    private static void assertRead(JavaNfsRdma r, long bytes, long calls, boolean eof) {
        assertThat(r.find(JavaNfsRdma.READ, 0)).as("the 'read ... octets' line").isNotNull();
        assertThat(r.number(JavaNfsRdma.READ, 1)).as("octets read").isEqualTo(bytes);
        assertThat(r.number(JavaNfsRdma.READ, 3)).as("READ calls").isEqualTo(calls);
        assertThat(r.find(JavaNfsRdma.READ, 6) != null).as("EOF reached").isEqualTo(eof);
    }

    /** Byte i of data.bin is i*7 mod 251: the file holds that from {@code offset} on, {@code length} octets. */
    private static void assertPattern(Path file, long offset, int length) throws IOException {
        byte[] b = Files.readAllBytes(file);
        assertThat(b).as("octets in " + file.getFileName()).hasSize(length);
        for (int i = 0; i < length; i++) {
            int expected = (int) ((offset + i) * 7 % 251);
            if ((b[i] & 0xff) != expected) {
                throw new AssertionError(file.getFileName() + ": octet " + i + " (file offset " + (offset + i)
                        + ") is " + (b[i] & 0xff) + ", the pattern says " + expected);
            }
        }
    }

    private static String md5(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(Files.readAllBytes(file)));
    }

    private static String figures(JavaNfsRdma r) {
        return String.format(Locale.ROOT, "%s octets, %s READ calls, %s s, %s MB/s, credits granted %s (used up to"
                + " %s), invalidations remote %s / local %s, md5 %s", r.find(JavaNfsRdma.READ, 1),
                r.find(JavaNfsRdma.READ, 3), r.find(JavaNfsRdma.READ, 4), r.find(JavaNfsRdma.READ, 5),
                r.find(JavaNfsRdma.CREDITS, 1), r.find(JavaNfsRdma.CREDITS, 2), r.find(JavaNfsRdma.CREDITS, 3),
                r.find(JavaNfsRdma.CREDITS, 4), r.find(JavaNfsRdma.MD5, 1));
    }

    @FunctionalInterface
    interface Check {
        /** Asserts; returns the figures for results.md. */
        String run() throws Exception;
    }

    /** Runs the checks, records the case in results.md, and adds the run's output to a failure. */
    private void verify(String id, String title, JavaNfsRdma r, Check check) {
        String command = shown(r);
        try {
            String figures = check.run();
            row(id, title, command, r, "pass", figures);
        } catch (AssertionError e) {
            String first = e.getMessage() == null ? "assertion failed" : e.getMessage().lines().findFirst().orElse("");
            row(id, title, command, r, "FAIL: " + first, "");
            throw new AssertionError(e.getMessage() + (r == null ? "" : r.details()), e);
        } catch (Exception e) {
            row(id, title, command, r, "ERROR: " + e, "");
            throw new AssertionError(e + (r == null ? "" : r.details()), e);
        }
    }

    /** The command as results.md shows it: without the fixed options, with the logs directory abbreviated. */
    private String shown(JavaNfsRdma r) {
        return r == null ? "" : r.shownCommand().replaceAll(" --host 127.0.0.1 --port \\d+ --timeout \\d+", "")
                .replace(vm.dir + "/", "<logs>/" + VM_NAME + "/");
    }

    private void row(String id, String title, String command, JavaNfsRdma r, String verdict, String figures) {
        rows.add("| " + id + " | " + esc(title) + " | `" + esc(command) + "` | " + (r == null ? "" : r.rc == null
                ? "killed" : r.rc.toString()) + " | " + (r == null ? "" : String.format(Locale.ROOT, "%.1f s",
                        r.seconds)) + " | " + esc(figures) + " | " + esc(verdict) + " |");
        StringBuilder sb = new StringBuilder("# NFS/RDMA sample against Linux nfsd (svcrdma) on siw\n\n");
        rows.stream().filter(s -> s.startsWith("VM:")).forEach(sb::append);
        sb.append("\n| # | case | command (plus `--host 127.0.0.1 --port <fwd> --timeout 30`) | exit | wall (JVM"
                + " start included) | figures | verdict |\n|---|---|---|---|---|---|---|\n");
        rows.stream().filter(s -> s.startsWith("|")).forEach(s -> sb.append(s).append('\n'));
        Logs.write(Harness.LOG_DIR.resolve(VM_NAME).resolve("results.md"), sb.toString());
    }

    private static String esc(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }
}
