package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.softrdma.samples.perf.PerfOptions.ReactiveTest;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.samples.perf.PerfProtocol.Test;
import java.time.Duration;
import java.util.List;

class PerfOptionsTest {
    @org.junit.jupiter.api.Test
    void defaultsMeasureEveryTestAtThreeSizesNextToTcp() {
        PerfOptions o = PerfOptions.parse(new String[0]);
        assertThat(o.tests()).as("the atomics too, once each (they have one size)")
                .containsExactly(Test.WRITE, Test.READ, Test.SEND, Test.FETCH_ADD, Test.COMPARE_SWAP);
        assertThat(o.sizes()).containsExactly(64, 4096, 65536);
        assertThat(o.crc()).isTrue();
        assertThat(o.markers()).isFalse();
        assertThat(o.mpaRevision()).isEqualTo(2);
        assertThat(o.baseline()).isTrue();
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.latencyRoundTrips()).isEqualTo(PerfOptions.LATENCY_ROUND_TRIPS);
        assertThat(o.api()).isEqualTo(PerfOptions.Api.VERBS);
        assertThat(o.reactiveTests()).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void theReactiveApiHasSendRequestAndAtomic() {
        PerfOptions reactive = PerfOptions.parse(new String[] {"--api", "reactive"});
        assertThat(reactive.api()).isEqualTo(PerfOptions.Api.REACTIVE);
        assertThat(reactive.tests()).isEmpty();
        assertThat(reactive.reactiveTests()).containsExactly(ReactiveTest.SEND, ReactiveTest.REQUEST,
                ReactiveTest.ATOMIC);

        PerfOptions send = PerfOptions.parse(new String[] {"--api", "reactive", "--test", "send", "--size", "64"});
        assertThat(send.reactiveTests()).containsExactly(ReactiveTest.SEND);

        PerfOptions all = PerfOptions.parse(new String[] {"--api", "all", "--test", "send"});
        assertThat(all.tests()).as("verbs send next to the reactive one").containsExactly(Test.SEND);
        assertThat(all.reactiveTests()).containsExactly(ReactiveTest.SEND);

        PerfOptions request = PerfOptions.parse(new String[] {"--api", "all", "--test", "request,write"});
        assertThat(request.tests()).containsExactly(Test.WRITE);
        assertThat(request.reactiveTests()).containsExactly(ReactiveTest.REQUEST);

        PerfOptions verbs = PerfOptions.parse(new String[] {"--api", "verbs", "--test", "send"});
        assertThat(verbs.reactiveTests()).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void theRsocketRowsMayBeMeasuredInTurnsOfTheTwoTransports() {
        assertThat(PerfOptions.parse(new String[] {"--api", "rsocket"}).rounds()).isEqualTo(4);
        assertThat(PerfOptions.parse(new String[] {"--api", "rsocket", "--rounds", "1"}).rounds())
                .as("each phase whole").isEqualTo(1);
        assertThat(PerfOptions.parse(new String[] {"--api", "verbs"}).rounds()).isEqualTo(1);
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--rounds", "4"}))
                .hasMessage("--rounds alternates the transports of the RSocket rows: add --api rsocket (the cache"
                        + " benchmark, --test cache, has a --rounds of its own)");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--api", "rsocket", "--rounds", "0"}))
                .hasMessage("--rounds 0 must be a whole number from 1 to 1000");
    }

    @org.junit.jupiter.api.Test
    void theRsocketApiHasFireAndForgetRequestResponseAndStreamUpToOneMib() {
        PerfOptions all = PerfOptions.parse(new String[] {"--api", "rsocket"});
        assertThat(all.api()).isEqualTo(PerfOptions.Api.RSOCKET);
        assertThat(all.rsocketModels()).containsExactly(PerfOptions.RsocketModel.FF, PerfOptions.RsocketModel.RR,
                PerfOptions.RsocketModel.STREAM);
        assertThat(all.sizes()).as("the issue's sizes").containsExactly(64, 4096, 1 << 20);
        assertThat(all.tests()).isEmpty();
        assertThat(all.reactiveTests()).isEmpty();
        assertThat(all.baseline()).as("the TCP twin").isTrue();
        PerfOptions some = PerfOptions.parse(new String[] {"--api", "rsocket", "--test", "stream,rr", "--size", "4K",
            "--no-baseline"});
        assertThat(some.rsocketModels()).containsExactly(PerfOptions.RsocketModel.STREAM, PerfOptions.RsocketModel.RR);
        assertThat(some.sizes()).containsExactly(4096);
        assertThat(some.baseline()).isFalse();
        assertThat(PerfOptions.parse(new String[] {"--api", "all"}).rsocketModels())
                .as("all stays the verbs and the reactive API, as other runs compare it").isEmpty();
        assertThat(all.messaging()).as("the transport's own").isEqualTo(io.softrdma.rsocket.RSocketMessaging.DEFAULTS);
        PerfOptions tuned = PerfOptions.parse(new String[] {"--api", "rsocket", "--inline", "16K", "--send-window",
            "32M"});
        assertThat(tuned.messaging().inlineSize()).isEqualTo(16384);
        assertThat(tuned.messaging().sendWindowBytes()).isEqualTo(32L << 20);
        assertThat(tuned.messaging().sendWindow()).isEqualTo(MessagingOptions.DEFAULTS.sendWindow());
        PerfOptions reactive = PerfOptions.parse(new String[] {"--api", "reactive", "--inline", "5K", "--send-window",
            "8M"});
        assertThat(reactive.messaging()).as("the library's, resized")
                .isEqualTo(MessagingOptions.DEFAULTS.withInlineSize(5120).withSendWindow(
                        MessagingOptions.DEFAULTS.sendWindow(), 8L << 20));
        assertThat(PerfOptions.parse(new String[] {"--api", "reactive"}).messaging())
                .isEqualTo(MessagingOptions.DEFAULTS);
    }

    @org.junit.jupiter.api.Test
    void atomicIsFetchAndAddAndCompareAndSwapInEitherApi() {
        PerfOptions verbs = PerfOptions.parse(new String[] {"--test", "atomic"});
        assertThat(verbs.tests()).containsExactly(Test.FETCH_ADD, Test.COMPARE_SWAP);
        assertThat(verbs.tests()).extracting(Test::wireName).containsExactly("fetch-add", "compare-swap");
        assertThat(verbs.tests()).allMatch(Test::atomic);
        assertThat(verbs.reactiveTests()).isEmpty();
        assertThat(verbs.baseline()).isTrue();

        PerfOptions mixed = PerfOptions.parse(new String[] {"--test", "read,atomic,atomic", "--size", "64,4K"});
        assertThat(mixed.tests()).containsExactly(Test.READ, Test.FETCH_ADD, Test.COMPARE_SWAP);
        assertThat(mixed.sizes()).as("read's sizes; the atomics run once regardless").containsExactly(64, 4096);

        PerfOptions reactive = PerfOptions.parse(new String[] {"--api", "reactive", "--test", "atomic"});
        assertThat(reactive.tests()).isEmpty();
        assertThat(reactive.reactiveTests()).containsExactly(ReactiveTest.ATOMIC);

        PerfOptions all = PerfOptions.parse(new String[] {"--api", "all", "--test", "atomic"});
        assertThat(all.tests()).containsExactly(Test.FETCH_ADD, Test.COMPARE_SWAP);
        assertThat(all.reactiveTests()).containsExactly(ReactiveTest.ATOMIC);

        PerfOptions remote = PerfOptions.parse(new String[] {"--connect", "10.0.0.1:7471", "--test", "atomic"});
        assertThat(remote.tests()).containsExactly(Test.FETCH_ADD, Test.COMPARE_SWAP);
    }

    @org.junit.jupiter.api.Test
    void everyOptionIsParsed() {
        PerfOptions o = PerfOptions.parse(new String[] {"--test", "read,send", "--size", "1,2K,1M", "--iterations",
            "7", "--warmup", "0", "--duration", "0.5", "--crc", "off", "--markers", "on", "--mpa-rev", "1", "--port", "7471",
            "--no-baseline", "--transport", "nio", "--json", "--no-progress"});
        assertThat(o.tests()).containsExactly(Test.READ, Test.SEND);
        assertThat(o.sizes()).containsExactly(1, 2048, 1 << 20);
        assertThat(o.iterations()).isEqualTo(7);
        assertThat(o.latencyRoundTrips()).isEqualTo(7);
        assertThat(o.warmup()).isZero();
        assertThat(o.duration()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.crc()).isFalse();
        assertThat(o.markers()).isTrue();
        assertThat(o.mpaRevision()).isEqualTo(1);
        assertThat(o.port()).isEqualTo(7471);
        assertThat(o.baseline()).isFalse();
        assertThat(o.json()).isTrue();
        assertThat(o.progress()).isFalse();
    }

    @org.junit.jupiter.api.Test
    void twoProcessModes() {
        PerfOptions server = PerfOptions.parse(new String[] {"--server", "--port", "7471"});
        assertThat(server.server()).isTrue();
        PerfOptions client = PerfOptions.parse(new String[] {"--connect", "10.0.0.1:7471"});
        assertThat(client.connect()).isEqualTo("10.0.0.1:7471");
        assertThat(client.baseline()).as("no raw TCP reference against a remote server").isFalse();
    }

    @org.junit.jupiter.api.Test
    void mistakesAreNamedWithTheFix() {
        for (List<String> args : List.of(
                List.of("--test", "atomics"),
                List.of("--test", "fetch-add"),
                List.of("--api", "reactive", "--test", "read,atomic"),
                List.of("--size", "0"),
                List.of("--size", "12Q"),
                List.of("--iterations", "-1"),
                List.of("--duration", "0"),
                List.of("--crc", "yes"),
                List.of("--mpa-rev", "3"),
                List.of("--port", "70000"),
                List.of("--server"),
                List.of("--server", "--port", "1", "--connect", "h:2"),
                List.of("--connect", "nohost"),
                List.of("--connect", "h:2", "--port", "3"),
                List.of("--transport", "kqueue"),
                List.of("--size"),
                List.of("--api", "rsockets"),
                List.of("--api", "rsocket", "--test", "send"),
                List.of("--api", "rsocket", "--connect", "h:2"),
                List.of("--api", "reactive", "--test", "ff"),
                List.of("--test", "stream"),
                List.of("--inline", "8K"),
                List.of("--api", "rsocket", "--inline", "1000"),
                List.of("--api", "rsocket", "--inline", "512K"),
                List.of("--api", "rsocket", "--send-window", "0"),
                List.of("--api", "rsocket", "--send-window", "lots"),
                List.of("--api"),
                List.of("--test", "request"),
                List.of("--api", "reactive", "--test", "write"),
                List.of("--api", "reactive", "--connect", "h:2"),
                List.of("--api", "all", "--server", "--port", "1"),
                List.of("--bogus"))) {
            assertThatThrownBy(() -> PerfOptions.parse(args.toArray(String[]::new)))
                    .as("%s", args)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageFindingMatch("--|unknown option");
        }
    }

    @org.junit.jupiter.api.Test
    void picocliAlsoTakesNameEqualsValueAndTheLastOfARepeatedOption() {
        PerfOptions o = PerfOptions.parse(new String[] {"--test=write", "--size=4K", "--crc=off", "--size", "1M"});
        assertThat(o.tests()).containsExactly(Test.WRITE);
        assertThat(o.sizes()).as("the last --size wins, as before").containsExactly(1 << 20);
        assertThat(o.crc()).isFalse();
    }

    @org.junit.jupiter.api.Test
    void picocliMistakesAreSaidTheSameWay() {
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--bogus"})).hasMessage("unknown option --bogus");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--bogus=1"})).hasMessage("unknown option --bogus");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--size"})).hasMessage("--size needs a value");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--connect", "--server"}))
                .as("an option name is not taken as a value").hasMessage("--connect needs a value");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"stray"}))
                .hasMessage("unexpected argument stray (options start with --)");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--json=maybe"})).hasMessageContaining("--json");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--size", "12Q"}))
                .hasMessage("--size 12Q is not a size (examples: 64, 4K, 1M)");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--server"}))
                .hasMessage("--server needs --port P, the port clients will --connect to");
    }

    @org.junit.jupiter.api.Test
    void helpListsEveryOptionWithItsDescription() {
        assertThat(PerfOptions.USAGE).startsWith("usage: java -jar perf.jar [options]\n  Measures RDMA Write");
        for (String line : List.of("--api verbs|reactive|rsocket|all\n", "verbs (default)",
                "--test write|read|send|atomic|request|ff|rr|stream|all\n",
                "tests to run, comma separated (default: all)",
                "--size N[,N...]         message sizes in octets", "--duration S            seconds per",
                "--iterations N          operations per", "--warmup S              seconds each test",
                "--rate MIBPS            at most", "--crc on|off            MPA CRC32c (default: on)",
                "--markers on|off        MPA Markers", "--mpa-rev 1|2           MPA revision",
                "--port P                the SoftRDMA server's port", "--server                run only",
                "--connect HOST:PORT     run only the client", "--no-baseline           skip",
                "--transport epoll|nio   Netty transport", "--inline N              with --api reactive, rsocket",
                "--send-window N         with --api reactive, rsocket", "--json                  one JSON object",
                "--no-progress           no progress line", "--help                  this text",
                "--connections N[,N..]   N client connections at once", "--receive-pool N|off    with --connections")) {
            assertThat(PerfOptions.USAGE).contains(line);
        }
    }
}
