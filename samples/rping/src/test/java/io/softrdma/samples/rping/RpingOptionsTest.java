package io.softrdma.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RpingOptionsTest {
    @Test
    void serverDefaults() {
        RpingOptions o = RpingOptions.parse(new String[] {"-s"});
        assertThat(o.server()).isTrue();
        assertThat(o.address()).isEqualTo("0.0.0.0");
        assertThat(o.port()).isEqualTo(7174);
        assertThat(o.count()).isZero();
        assertThat(o.size()).isEqualTo(64);
        assertThat(o.verbose()).isFalse();
        assertThat(o.validate()).isFalse();
        assertThat(o.debug()).isFalse();
        assertThat(o.persistent()).isFalse();
        assertThat(o.mpaRevision()).isEqualTo(2);
        assertThat(o.crc()).isFalse();
        assertThat(o.peerToPeer()).isEqualTo(PeerToPeerMode.OFF);
        assertThat(o.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.firstFpduProbe()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void clientWithEveryOption() {
        RpingOptions o = RpingOptions.parse(new String[] {"-c", "-a", "10.0.2.15", "-p", "17174", "-C", "5", "-S",
            "4096", "-v", "-V", "-d", "--mpa-rev", "1", "--crc", "on", "--p2p", "off", "--timeout", "2.5"});
        assertThat(o.server()).isFalse();
        assertThat(o.address()).isEqualTo("10.0.2.15");
        assertThat(o.port()).isEqualTo(17174);
        assertThat(o.count()).isEqualTo(5);
        assertThat(o.size()).isEqualTo(4096);
        assertThat(o.verbose()).isTrue();
        assertThat(o.validate()).isTrue();
        assertThat(o.debug()).isTrue();
        assertThat(o.mpaRevision()).isEqualTo(1);
        assertThat(o.crc()).isTrue();
        assertThat(o.timeout()).isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void serverWithEveryOption() {
        RpingOptions o = RpingOptions.parse(new String[] {"-s", "-a", "127.0.0.1", "-p", "0", "-P", "-S", "26", "-v",
            "-V", "-d", "--p2p", "read", "--crc", "off", "--mpa-rev", "2", "--timeout", "7"});
        assertThat(o.server()).isTrue();
        assertThat(o.persistent()).isTrue();
        assertThat(o.port()).isZero();
        assertThat(o.size()).isEqualTo(26);
        assertThat(o.peerToPeer()).isEqualTo(PeerToPeerMode.READ);
        assertThat(o.timeout()).isEqualTo(Duration.ofSeconds(7));
        for (String p : List.of("off", "write", "read", "any")) {
            assertThat(RpingOptions.parse(new String[] {"-s", "--p2p", p}).peerToPeer())
                    .isEqualTo(PeerToPeerMode.valueOf(p.toUpperCase(java.util.Locale.ROOT)));
        }
    }

    @Test
    void getoptStyleGroupsAndAttachedValues() {
        RpingOptions o = RpingOptions.parse(new String[] {"-cvV", "-a127.0.0.1", "-p7175", "-C1", "--crc=on",
            "--p2p=write"});
        assertThat(o.server()).isFalse();
        assertThat(o.verbose()).isTrue();
        assertThat(o.validate()).isTrue();
        assertThat(o.address()).isEqualTo("127.0.0.1");
        assertThat(o.port()).isEqualTo(7175);
        assertThat(o.count()).isEqualTo(1);
        assertThat(o.crc()).isTrue();
        assertThat(o.peerToPeer()).isEqualTo(PeerToPeerMode.WRITE);
    }

    @Test
    void getoptClustersEndingInAValue() {
        RpingOptions o = RpingOptions.parse(new String[] {"-cVa127.0.0.1", "-dp", "7175", "-vC", "3"});
        assertThat(o.server()).isFalse();
        assertThat(o.validate()).isTrue();
        assertThat(o.address()).isEqualTo("127.0.0.1");
        assertThat(o.debug()).isTrue();
        assertThat(o.port()).isEqualTo(7175);
        assertThat(o.verbose()).isTrue();
        assertThat(o.count()).isEqualTo(3);
        RpingOptions s = RpingOptions.parse(new String[] {"-sPvV", "-S4096", "--timeout=7", "--probe=0"});
        assertThat(s.server()).isTrue();
        assertThat(s.persistent()).isTrue();
        assertThat(s.size()).isEqualTo(4096);
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(s.firstFpduProbe()).isZero();
        assertThat(RpingOptions.parse(new String[] {"-s", "-p", "1", "-p", "2", "-s"}).port())
                .as("as with getopt, the last of a repeated option counts").isEqualTo(2);
    }

    @Test
    void theInteropHarnessCommandLines() {
        // As InteropCase and the Siw*InteropTest cases run java -jar rping.jar.
        RpingOptions client = RpingOptions.parse(new String[] {"-c", "-a", "127.0.0.1", "-p", "17312", "-C", "200",
            "-V", "-d", "--timeout", "30", "--mpa-rev", "2", "--crc", "off"});
        assertThat(client.server()).isFalse();
        assertThat(client.port()).isEqualTo(17312);
        assertThat(client.count()).isEqualTo(200);
        assertThat(client.validate() && client.debug()).isTrue();
        assertThat(client.timeout()).isEqualTo(Duration.ofSeconds(30));
        for (List<String> extra : List.of(List.of("--p2p", "write"), List.of("--p2p", "read"), List.of("--mpa-rev",
                "1"), List.of("-S", "65535", "--crc", "on"), List.of("--crc", "off"), List.<String>of())) {
            List<String> args = new java.util.ArrayList<>(List.of("-c", "-a", "127.0.0.1", "-p", "17312", "-C", "200",
                    "-V", "-d", "--timeout", "30"));
            args.addAll(extra);
            assertThat(RpingOptions.parse(args.toArray(String[]::new)).address()).as("%s", args)
                    .isEqualTo("127.0.0.1");
        }
        RpingOptions server = RpingOptions.parse(new String[] {"-s", "-a", "127.0.0.1", "-p", "17318", "-V", "-d",
            "--timeout", "30"});
        assertThat(server.server()).isTrue();
        assertThat(server.port()).isEqualTo(17318);
        // And as README.md shows it.
        assertThat(RpingOptions.parse(new String[] {"-s", "-a", "127.0.0.1", "-p", "7174", "-v", "-V"}).verbose())
                .isTrue();
    }

    @Test
    void picocliMistakesAreSaidTheSameWay() {
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-s", "-a"})).hasMessage("-a needs a value");
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-c", "-a", "-v"}))
                .as("an option is not taken as -a's address").hasMessage("-a needs a value");
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-s", "--timeout"}))
                .hasMessage("--timeout needs a value");
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-sx"})).hasMessage("unknown option -x");
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-s", "--bogus=1"}))
                .hasMessage("unknown option --bogus");
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-s", "stray"}))
                .hasMessage("unexpected argument stray (options start with -)");
        assertThatThrownBy(() -> RpingOptions.parse(new String[] {"-cs", "-a", "h"}))
                .hasMessage("-s and -c exclude each other: one process serves, the other pings");
    }

    @Test
    void helpListsEveryOption() {
        assertThat(RpingOptions.USAGE).startsWith("usage: rping -s [-a ADDR] [-p PORT] [-S SIZE] [-v] [-V] [-d] [-P]"
                + " [MPA options]\n       rping -c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] [-d] [MPA options]");
        for (String option : List.of("-s  ", "-c  ", "-a ADDR  ", "-p PORT  ", "-C COUNT  ", "-S SIZE  ", "-v  ",
                "-V  ", "-d  ", "-P  ", "--mpa-rev 1|2  ", "--crc on|off  ", "--p2p off|write|read|any\n",
                "--timeout SECONDS  ", "--probe MS  ", "-h, --help  ")) {
            // picocli's layout: a short option's value after two spaces ("-a  ADDR"), then the description
            String pattern = java.util.regex.Pattern.quote(option.strip()).replace(" ", "\\E +\\Q");
            assertThat(RpingOptions.USAGE).as(option).containsPattern("(?m)^ +" + pattern
                    + (option.endsWith("\n") ? "\n +\\S" : "  +\\S"));
        }
        assertThat(RpingOptions.USAGE).contains("octets per ping, 26 to 65535 (default 64)",
                "server: keep serving connections until killed");
    }

    @Test
    void theServerKeepsTheLibrarysFiveSecondRequestTimeoutWhateverTheStepTimeout() {
        MpaSettings s = RpingOptions.parse(new String[] {"-s", "--timeout", "30"}).mpaSettings();
        assertThat(MpaSettings.defaults().requestTimeout()).as("siw's").isEqualTo(Duration.ofSeconds(5));
        assertThat(s.requestTimeout()).isEqualTo(MpaSettings.defaults().requestTimeout());
        assertThat(s.acceptTimeout()).isEqualTo(RpingOptions.STARTUP_STEP_CAP);
        assertThat(s.replyTimeout()).as("the client's wait for the Reply is a step").isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void mpaSettingsFollowTheOptions() {
        MpaSettings s = RpingOptions.parse(new String[] {"-c", "-a", "h", "--crc", "on", "--p2p", "any", "--timeout",
            "3", "--probe", "0"}).mpaSettings();
        assertThat(s.firstFpduProbe()).isZero();
        assertThat(s.revision()).isEqualTo(2);
        assertThat(s.crc()).isTrue();
        assertThat(s.peerToPeer()).isEqualTo(PeerToPeerMode.ANY);
        assertThat(s.replyTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.requestTimeout()).as("a shorter --timeout shortens the startup steps").isEqualTo(
                Duration.ofSeconds(3));
        assertThat(s.acceptTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(RpingOptions.parse(new String[] {"-s", "--mpa-rev", "1"}).mpaSettings().revision()).isEqualTo(1);
    }

    @Test
    void mistakesAreNamed() {
        List<List<String>> mistakes = List.of(
                List.<String>of(),
                List.of("-v"),
                List.of("-s", "-c", "-a", "h"),
                List.of("-c"),
                List.of("-c", "-a", "h", "-p", "0"),
                List.of("-c", "-a", "h", "-P"),
                List.of("-s", "-p", "65536"),
                List.of("-s", "-p", "x"),
                List.of("-s", "-C", "-1"),
                List.of("-s", "-S", "25"),
                List.of("-s", "-S", "65536"),
                List.of("-s", "--mpa-rev", "3"),
                List.of("-s", "--crc", "yes"),
                List.of("-s", "--p2p", "send"),
                List.of("-s", "--mpa-rev", "1", "--p2p", "write"),
                List.of("-s", "--timeout", "0"),
                List.of("-c", "-a", "h", "--probe", "-1"),
                List.of("-s", "--timeout", "soon"),
                List.of("-s", "-a"),
                List.of("-s", "--timeout"),
                List.of("-s", "-x"),
                List.of("-s", "--bogus", "1"),
                List.of("-s", "stray"));
        for (List<String> args : mistakes) {
            assertThatThrownBy(() -> RpingOptions.parse(args.toArray(String[]::new))).as("%s", args)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageFindingMatch("-[a-zA-Z-]|options? ");
        }
    }

    @Test
    void badArgumentsExitWithStatus2AndTheUsage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = RpingMain.run(new String[] {"-s", "-S", "10"}, print(out), print(err));
        assertThat(status).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("rping: -S 10 must be a whole number from 26 to"
                + " 65535").contains("usage: rping -s", "--mpa-rev 1|2");
    }

    @Test
    void helpGoesToStandardOutput() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(RpingMain.run(new String[] {"--help"}, print(out), print(err))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: rping").contains("--timeout SECONDS");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }
}
