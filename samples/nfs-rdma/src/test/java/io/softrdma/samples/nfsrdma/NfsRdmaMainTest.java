package io.softrdma.samples.nfsrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The command's exit codes and messages, without an NFS server (the interop module has the real one). */
@Timeout(60)
class NfsRdmaMainTest {
    private record Run(int rc, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = NfsRdmaMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpGoesToStdoutWithExit0() {
        Run r = run("--help");
        assertThat(r.rc()).isEqualTo(NfsRdmaMain.OK);
        assertThat(r.out()).startsWith("usage: nfs-rdma --null N").contains("--chunk-size S").contains("--no-inv");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void badUsageExits2WithTheReasonAndTheUsage() {
        Run r = run("--read", "/data.bin", "--crc", "maybe");
        assertThat(r.rc()).isEqualTo(NfsRdmaMain.USAGE);
        assertThat(r.err()).startsWith("nfs-rdma: --crc maybe: use on or off\nusage: nfs-rdma");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void nothingListeningExits1WithOneClearLine() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Run r = run("--port", Integer.toString(port), "--null", "1", "--timeout", "5");
        assertThat(r.rc()).isEqualTo(NfsRdmaMain.FAILED);
        assertThat(r.err()).startsWith("nfs-rdma: error: cannot connect to 127.0.0.1:" + port)
                .contains("refused").hasLineCount(1);
    }

    @Test
    void aWriteOfALocalFileThatIsNotThereFailsBeforeConnecting() throws IOException {
        // A server socket that would see any connection: nothing may reach the server, whose OPEN would truncate.
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run r = run("--port", Integer.toString(s.getLocalPort()), "--write", "/no/such/local/file", "--to",
                    "/copy.bin");
            assertThat(r.rc()).isEqualTo(NfsRdmaMain.FAILED);
            assertThat(r.err()).isEqualTo("nfs-rdma: error: cannot read /no/such/local/file: no such file\n");
            assertThat(r.out()).isEmpty();
            s.setSoTimeout(1);
            assertThatThrownBy(s::accept).as("no connection was made").isInstanceOf(
                    java.net.SocketTimeoutException.class);
        }
    }

    @Test
    void aPeerThatIsNotAnRdmaServerFailsWithinTheTimeout() throws Exception {
        // Accepts the TCP connection and says nothing: the MPA startup must give up, not hang.
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            AtomicReference<Socket> accepted = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    accepted.set(s.accept());
                } catch (IOException e) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
            long t0 = System.nanoTime();
            Run r = run("--port", Integer.toString(s.getLocalPort()), "--null", "1", "--timeout", "1");
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(r.rc()).isEqualTo(NfsRdmaMain.FAILED);
            assertThat(r.err()).startsWith("nfs-rdma: error: cannot connect to 127.0.0.1:" + s.getLocalPort())
                    .hasLineCount(1);
            assertThat(seconds).isLessThan(10);
            Socket a = accepted.get();
            if (a != null) {
                a.close();
            }
        }
    }
}
