package io.softrdma.samples.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server and client in one JVM on 127.0.0.1, as two perftest processes would run: every tool, with the data
 * checked ({@code --verify}: the Sends received and the Reads' results must be the sender's pattern), several
 * QPs, every size, a timed run; and the ib_write_lat refusal of a client that offers no ready-to-receive message.
 */
class PerftestLoopbackTest {
    private static final Duration EXIT = Duration.ofSeconds(60);

    static Stream<Arguments> runs() {
        return Stream.of(
                Arguments.of("ib_write_bw", List.of("-s", "4096", "-n", "200")),
                Arguments.of("ib_read_bw", List.of("-s", "4096", "-n", "200")),
                Arguments.of("ib_send_bw", List.of("-s", "4096", "-n", "2000")),
                Arguments.of("ib_write_lat", List.of("-s", "64", "-n", "100")),
                Arguments.of("ib_read_lat", List.of("-s", "4096", "-n", "100")),
                Arguments.of("ib_send_lat", List.of("-s", "64", "-n", "100")),
                Arguments.of("ib_write_bw", List.of("-q", "3", "-s", "64", "-n", "300")),
                Arguments.of("ib_send_bw", List.of("-q", "2", "-s", "100", "-n", "1500", "-r", "30")),
                Arguments.of("ib_read_bw", List.of("-a", "-n", "5")),
                Arguments.of("ib_send_bw", List.of("-a", "-n", "5")),
                Arguments.of("ib_write_bw", List.of("-s", "1048576", "-n", "10", "--report_gbits")),
                Arguments.of("ib_send_lat", List.of("-D", "1", "-s", "64")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("runs")
    void bothSidesFinishWithTheirResultLines(String tool, List<String> flags) throws Exception {
        List<String> serverArgs = new ArrayList<>(List.of("--verify", "--timeout", "20"));
        serverArgs.addAll(flags);
        PerftestRun server = PerftestRun.server(tool, serverArgs.toArray(String[]::new));
        List<String> clientArgs = new ArrayList<>(List.of(tool, "-R", "-p", Integer.toString(server.port()),
                "--verify", "--timeout", "20"));
        clientArgs.addAll(flags);
        clientArgs.add("127.0.0.1");
        PerftestRun client = PerftestRun.start(clientArgs.toArray(String[]::new));

        assertThat(client.exitCode(EXIT)).as("%s", client).isZero();
        assertThat(server.exitCode(EXIT)).as("%s", server).isZero();
        assertThat(client.err()).as("%s", client).isEmpty();
        assertThat(server.err()).as("%s", server).isEmpty();
        boolean all = flags.contains("-a");
        boolean timed = flags.contains("-D");
        String iters = timed ? "\\d+" : flags.get(flags.indexOf("-n") + 1);
        int qps = flags.contains("-q") ? Integer.parseInt(flags.get(flags.indexOf("-q") + 1)) : 1;
        String shown = tool.endsWith("_bw") && !timed ? Long.toString(Long.parseLong(iters) * qps) : iters;
        String size = all ? "8388608" : flags.get(flags.indexOf("-s") + 1);
        String line = "(?m)^ " + size + " +" + shown + " ";
        assertThat(client.out()).as("the client's last result line: %s", client).containsPattern(line);
        if (!tool.equals("ib_read_lat")) {
            // ib_write_bw/ib_read_bw servers print the client's result; the others their own
            assertThat(server.out()).as("the server's result line: %s", server).containsPattern(line);
        }
        if (all) {
            assertThat(client.out().lines().filter(l -> l.matches("^ \\d+ +\\d+ .*")).count())
                    .as("one line per size, 2 to 2^23: %s", client).isEqualTo(23);
        }
        assertThat(client.out()).as("%s", client).contains(flags.contains("--report_gbits") ? "BW average[Gb/sec]"
                : tool.endsWith("_bw") ? "BW average[MB/sec]" : timed ? "tps average" : "t_typical[usec]");
    }

    /**
     * -D: each side stops at its own deadline, so the last Send of a ping-pong may go unanswered. Here the server's
     * deadline comes a second before the client's: the client stops waiting at its deadline, as perftest does, instead
     * of failing after its --timeout.
     */
    @Test
    void aTimedSendLatClientStopsAtItsDeadlineWhenTheServerStoppedFirst() throws Exception {
        PerftestRun server = PerftestRun.server("ib_send_lat", "--timeout", "20", "-D", "1", "-s", "64");
        PerftestRun client = PerftestRun.start("ib_send_lat", "-R", "-p", Integer.toString(server.port()),
                "--timeout", "20", "-D", "2", "-s", "64", "127.0.0.1");

        assertThat(client.exitCode(Duration.ofSeconds(15))).as("%s", client).isZero();
        assertThat(server.exitCode(EXIT)).as("%s", server).isZero();
        assertThat(client.err()).as("%s", client).isEmpty();
        assertThat(client.out()).as("%s", client).containsPattern("(?m)^ 64 +\\d+ ");
    }

    /** RFC 5044 §7.1.2: the ib_write_lat server writes first, which needs the client's RTR (RFC 6581). */
    @Test
    void writeLatServerRefusesAClientWithoutReadyToReceive() throws Exception {
        PerftestRun server = PerftestRun.server("ib_write_lat", "--timeout", "10");
        PerftestRun client = PerftestRun.start("ib_write_lat", "-R", "-p", Integer.toString(server.port()), "--p2p",
                "off", "--timeout", "10", "127.0.0.1");

        assertThat(server.exitCode(EXIT)).as("%s", server).isEqualTo(PerftestMain.FAILED);
        assertThat(server.err()).as("%s", server).contains("RFC 5044 §7.1.2").contains("peer_to_peer=1");
        assertThat(client.exitCode(EXIT)).as("%s", client).isEqualTo(PerftestMain.FAILED);
        assertThat(client.err()).as("%s", client).startsWith("perftest: error: ");
    }

    @Test
    void aClientWithNoServerFailsWithinItsTimeout() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        PerftestRun client = PerftestRun.start("ib_write_bw", "-R", "-p", Integer.toString(port), "--timeout", "2",
                "127.0.0.1");
        assertThat(client.exitCode(Duration.ofSeconds(20))).as("%s", client).isEqualTo(PerftestMain.FAILED);
        assertThat(client.err()).as("%s", client).contains("the control connection to 127.0.0.1:" + port);
    }
}
