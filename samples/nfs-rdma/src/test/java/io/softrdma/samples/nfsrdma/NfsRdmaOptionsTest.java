package io.softrdma.samples.nfsrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.rpc.RpcAuth;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class NfsRdmaOptionsTest {
    @Test
    void nullDefaults() {
        NfsRdmaOptions o = NfsRdmaOptions.parse("--null", "3");
        assertThat(o.read()).isFalse();
        assertThat(o.nullCalls()).isEqualTo(3);
        assertThat(o.host()).isEqualTo("127.0.0.1");
        assertThat(o.port()).isEqualTo(20049);
        assertThat(o.crc()).isFalse();
        assertThat(o.remoteInvalidation()).isTrue();
        assertThat(o.credits()).isEqualTo(32);
        assertThat(o.inlineSize()).isEqualTo(4096);
        assertThat(o.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.firstFpduProbe()).isEqualTo(Duration.ofMillis(200));
        assertThat(o.machine()).isEqualTo("softrdma");
        assertThat(o.uid()).isZero();
        assertThat(o.gid()).isZero();
        assertThat(o.verbose()).isFalse();
    }

    @Test
    void readDefaults() {
        NfsRdmaOptions o = NfsRdmaOptions.parse("--read", "/data.bin");
        assertThat(o.read()).isTrue();
        assertThat(o.path()).isEqualTo("/data.bin");
        assertThat(o.offset()).isZero();
        assertThat(o.count()).as("to the end of the file").isEqualTo(-1);
        assertThat(o.chunkSize()).isEqualTo(65536);
        assertThat(o.out()).isNull();
        assertThat(o.stateid()).isEqualTo(NfsRdmaOptions.Stateid.ONES);
        assertThat(o.window()).as("the credits").isZero();
    }

    @Test
    void everyOption() {
        NfsRdmaOptions o = NfsRdmaOptions.parse("--host", "10.0.2.15", "--port=17200", "--read", "/a/b",
                "--offset", "262144", "--count", "131072", "--chunk-size", "131072", "--out", "/tmp/x.bin",
                "--stateid", "zero", "--crc", "on", "--no-inv", "--credits", "128", "--inline-size", "1024",
                "--window", "4", "--timeout", "2.5", "--probe", "0", "--machine", "siwhost", "--uid", "1000", "--gid", "4294967295",
                "-v");
        assertThat(o.host()).isEqualTo("10.0.2.15");
        assertThat(o.port()).isEqualTo(17200);
        assertThat(o.path()).isEqualTo("/a/b");
        assertThat(o.offset()).isEqualTo(262144);
        assertThat(o.count()).isEqualTo(131072);
        assertThat(o.chunkSize()).isEqualTo(131072);
        assertThat(o.out()).isEqualTo(Path.of("/tmp/x.bin"));
        assertThat(o.stateid()).isEqualTo(NfsRdmaOptions.Stateid.ZERO);
        assertThat(o.stateid().bytes()).containsOnly(0).hasSize(16);
        assertThat(o.crc()).isTrue();
        assertThat(o.remoteInvalidation()).isFalse();
        assertThat(o.credits()).isEqualTo(128);
        assertThat(o.inlineSize()).isEqualTo(1024);
        assertThat(o.window()).isEqualTo(4);
        assertThat(o.timeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(o.firstFpduProbe()).isZero();
        assertThat(o.mpaSettings().firstFpduProbe()).isZero();
        assertThat(o.mpaSettings().replyTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(o.machine()).isEqualTo("siwhost");
        assertThat(o.uid()).isEqualTo(1000);
        assertThat(o.gid()).isEqualTo(-1);
        assertThat(o.verbose()).isTrue();
    }

    @Test
    void mpaSettingsAndCredential() {
        MpaSettings off = NfsRdmaOptions.parse("--null", "1").mpaSettings();
        assertThat(off.crc()).isFalse();
        assertThat(off.revision()).isEqualTo(MpaSettings.REVISION_2);
        assertThat(NfsRdmaOptions.parse("--null", "1", "--crc", "on").mpaSettings().crc()).isTrue();
        RpcAuth cred = NfsRdmaOptions.parse("--null", "1", "--machine", "siwhost").credential(0x5157ad00);
        assertThat(cred).isEqualTo(RpcAuth.sys(0x5157ad00, "siwhost", 0, 0));
        assertThat(cred.flavor()).isEqualTo(RpcAuth.AUTH_SYS);
    }

    @Test
    void ones() {
        assertThat(NfsRdmaOptions.Stateid.ONES.bytes()).containsOnly(0xff).hasSize(16);
    }

    @Test
    void badValuesFailWithClearMessages() {
        fails("--null 0", "--null 0 must be a whole number from 1 to 1000000");
        fails("--null x", "--null x must be a whole number");
        fails("--null 1 --port 0", "--port 0 must be a whole number from 1 to 65535");
        fails("--null 1 --port 70000", "--port 70000 must be a whole number from 1 to 65535");
        fails("--read /data.bin --offset -1", "--offset -1 must be a whole number from 0");
        fails("--read /data.bin --count 0", "--count 0 must be a whole number from 1");
        fails("--read /data.bin --chunk-size 0", "--chunk-size 0 must be a whole number from 1 to 1048576");
        fails("--read /data.bin --chunk-size 2097152", "--chunk-size 2097152 must be a whole number from 1 to"
                + " 1048576");
        fails("--read /data.bin --stateid two", "--stateid two: use ones (READ bypass) or zero (anonymous)");
        fails("--null 1 --crc yes", "--crc yes: use on or off");
        fails("--null 1 --credits 0", "--credits 0 must be a whole number from 1 to 1024");
        fails("--null 1 --credits 2000", "--credits 2000 must be a whole number from 1 to 1024");
        fails("--null 1 --inline-size 512", "--inline-size 512 must be a whole number from 1024 to 262144");
        fails("--null 1 --inline-size 1500", "--inline-size 1500 must be a whole number of KiB");
        fails("--null 1 --inline-size 524288", "--inline-size 524288 must be a whole number from 1024 to 262144");
        fails("--read /data.bin --window 0", "--window 0 must be a whole number from 1 to 1024");
        fails("--null 1 --timeout 0", "--timeout 0 must be a number of seconds above 0");
        fails("--null 1 --timeout soon", "--timeout soon must be a number of seconds");
        fails("--null 1 --probe 60001", "--probe 60001 must be a whole number from 0 to 60000 (milliseconds");
        fails("--null 1 --uid -1", "--uid -1 must be a whole number from 0 to 4294967295");
        fails("--read", "--read needs a value");
        fails("--read ''", "the path is empty");
        fails("--read /a/../b", "'..' cannot be looked up");
        fails("--null 1 --bogus 3", "unknown option --bogus");
        fails("--null 1 -x", "unknown option -x");
        fails("--null 1 stray", "unexpected argument stray");
        fails("--null 1 --null 2", "--null is given twice");
    }

    @Test
    void modesAreCheckedTogether() {
        fails("", "say what to do: --null N (N NULL calls), --read PATH, --write FILE --to PATH, --ls PATH or"
                + " --stat PATH");
        fails("--port 17200", "say what to do");
        fails("--null 3 --read /data.bin", "--null and --read exclude each other");
        fails("--read /a --write /tmp/b --to /b", "--read and --write exclude each other");
        fails("--ls / --stat /a", "--ls and --stat exclude each other");
        fails("--null 3 --offset 5", "--offset is not for --null");
        fails("--null 3 --out /tmp/x --count 5", "--count, --out are not for --null");
        fails("--write /tmp/x", "--write needs --to PATH");
        fails("--write /tmp/x --to /", "--to /: give a file name");
        fails("--write /tmp/x --to /a --offset 4", "--offset is not for --write");
        fails("--read /a --to /b", "--to is not for --read");
        fails("--read /a --write-chunks always", "--write-chunks is not for --read");
        fails("--ls / --chunk-size 4096", "--chunk-size is not for --ls");
        fails("--write /tmp/x --to /a --write-chunks some", "--write-chunks some: use auto or always");
        fails("--write /tmp/x --to /a --grace-wait -1", "--grace-wait");
        fails("--write /tmp/x --to /a/../b", "cannot be looked up");
    }

    @Test
    void writeOptions() {
        NfsRdmaOptions o = NfsRdmaOptions.parse("--write", "/tmp/x.bin", "--to", "/dir/copy.bin");
        assertThat(o.write()).isTrue();
        assertThat(o.read()).isFalse();
        assertThat(o.writeFile()).isEqualTo(java.nio.file.Path.of("/tmp/x.bin"));
        assertThat(o.to()).isEqualTo("/dir/copy.bin");
        assertThat(o.alwaysReadChunk()).isFalse();
        assertThat(o.graceWait()).isEqualTo(Duration.ofSeconds(180));
        assertThat(o.chunkSize()).isEqualTo(65536);
        NfsRdmaOptions all = NfsRdmaOptions.parse("--write", "/tmp/x.bin", "--to", "/c", "--write-chunks", "always",
                "--grace-wait", "5", "--chunk-size", "131072", "--window", "4");
        assertThat(all.alwaysReadChunk()).isTrue();
        assertThat(all.graceWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(all.chunkSize()).isEqualTo(131072);
        assertThat(all.window()).isEqualTo(4);
        assertThat(NfsRdmaOptions.parse("--ls", "/").listPath()).isEqualTo("/");
        assertThat(NfsRdmaOptions.parse("--stat", "/a").statPath()).isEqualTo("/a");
    }

    @Test
    void picocliMistakesAreSaidTheSameWay() {
        fails("--null=1 --null 2", "--null is given twice");
        fails("--read /data.bin --crc on --crc=off", "--crc is given twice");
        fails("--null 1 --bogus=3", "unknown option --bogus");
        fails("--read --out /tmp/x", "--read needs a value");
        fails("--null 1 --machine", "--machine needs a value");
        fails("--null 1 -- stray", "unexpected argument stray");
    }

    @Test
    void flagsMayBeRepeatedAndDebugIsKnown() {
        NfsRdmaOptions o = NfsRdmaOptions.parse("-v", "--null", "1", "--verbose", "--no-inv", "--no-inv", "--debug");
        assertThat(o.verbose()).isTrue();
        assertThat(o.remoteInvalidation()).isFalse();
    }

    @Test
    void theInteropHarnessCommandLines() {
        // As NfsRdmaInteropTest runs java -jar nfs-rdma.jar: host, port and timeout first, then each case's.
        String common = "--host 127.0.0.1 --port 17250 --timeout 60 ";
        for (String line : java.util.List.of("--null 3", "--read /data.bin --out /tmp/a.bin --crc off",
                "--read /data.bin --out /tmp/a.bin --crc on --no-inv --credits 128",
                "--read /data.bin --chunk-size 262144 --out /tmp/a.bin",
                "--read /data.bin --offset 262144 --count 131072 --out /tmp/a.bin",
                "--read /data.bin --offset 1047575 --count 65536 --out /tmp/a.bin -v", "--read /no-such-file",
                "--read /data.bin --stateid zero --count 65536 --out /tmp/a.bin",
                "--write /tmp/w.local --to /write-16m-crc-on.bin --crc on", "--write /tmp/s.local --to /s.bin -v",
                "--read /write-1m-crc-off.bin --out /tmp/b.bin --crc off", "--ls /", "--stat /write-16m-crc-on.bin")) {
            NfsRdmaOptions o = NfsRdmaOptions.parse((common + line).split(" "));
            assertThat(o.port()).as(line).isEqualTo(17250);
            assertThat(o.timeout()).as(line).isEqualTo(Duration.ofSeconds(60));
        }
    }

    @Test
    void helpListsEveryOptionInItsSection() {
        String usage = NfsRdmaOptions.USAGE;
        assertThat(usage).startsWith("usage: nfs-rdma --null N [--host H] [--port P] [transport options]\n"
                + "       nfs-rdma --read PATH");
        int transport = usage.indexOf("\ntransport options:\n");
        assertThat(transport).isPositive();
        for (String option : java.util.List.of("--null N", "--read PATH", "--offset O", "--count C", "--chunk-size S",
                "--out FILE", "--stateid ones|zero", "--window W", "--write FILE", "--to PATH",
                "--write-chunks MODE", "--grace-wait SECONDS", "--ls PATH", "--stat PATH", "--host H",
                "--port P")) {
            assertThat(usage.indexOf("      " + option + "  ")).as(option).isPositive().isLessThan(transport);
        }
        for (String option : java.util.List.of("--crc on|off", "--no-inv", "--credits N", "--inline-size N",
                "--timeout SECONDS", "--probe MS", "--machine NAME", "--uid N", "--gid N", "-v, --verbose",
                "--debug", "-h, --help")) {
            assertThat(usage.indexOf(option + "  ")).as(option).isGreaterThan(transport);
        }
        assertThat(usage).contains("RFC 8797 inline send and receive size, 1024 to 262144 in whole KiB")
                .endsWith("exit status: 0 success, 1 failure (one line \"nfs-rdma: error: ...\" on stderr), 2 bad"
                        + " usage\n");
    }

    private static void fails(String line, String message) {
        String[] args = line.isEmpty() ? new String[0] : line.replace("''", "\u0000").split(" ");
        for (int i = 0; i < args.length; i++) {
            args[i] = args[i].replace("\u0000", "");
        }
        assertThatThrownBy(() -> NfsRdmaOptions.parse(args)).as(line).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void helpIsRecognised() {
        assertThat(NfsRdmaOptions.wantsHelp(new String[] {"--null", "1", "--help"})).isTrue();
        assertThat(NfsRdmaOptions.wantsHelp(new String[] {"-h"})).isTrue();
        assertThat(NfsRdmaOptions.wantsHelp(new String[] {"--null", "1"})).isFalse();
    }
}
