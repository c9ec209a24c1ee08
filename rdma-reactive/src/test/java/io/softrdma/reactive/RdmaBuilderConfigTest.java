package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.ChannelOption;
import io.softrdma.cm.StartupLimiter;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.QueuePairConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The builders are immutable, copy on write, and tell what is set (as Reactor Netty's do). */
class RdmaBuilderConfigTest {

    @Test
    void eachClientSetterReturnsACopyWithOneThingChangedAndLeavesTheOriginalAlone() {
        RdmaClient base = RdmaClient.create();
        UnaryOperator<QueuePairConfig> shape = c -> c.withReadDepths(4, 8);
        MessagingOptions messaging = MessagingOptions.DEFAULTS.withMaxQueuedOperations(7);
        RdmaMetricsRecorder recorder = new RdmaMetricsRecorder() {
        };
        MpaSettings mpa = MpaSettings.defaults().withAcceptTimeout(Duration.ofSeconds(3));

        RdmaClient withMpa = base.mpa(mpa);
        RdmaClient withQp = withMpa.queuePair(shape);
        RdmaClient withMessaging = withQp.messaging(messaging);
        RdmaClient withMetrics = withMessaging.metrics(recorder);
        byte[] privateData = {1, 2, 3};
        RdmaClient withPrivateData = withMetrics.privateData(privateData);
        privateData[0] = 9; // the builder took a copy

        RdmaSessionConfig defaults = base.configuration().session();
        assertThat(defaults.mpa()).isEqualTo(RdmaSessionConfig.DEFAULT_MPA);
        assertThat(defaults.messaging()).isEqualTo(MessagingOptions.DEFAULTS);
        assertThat(defaults.metrics()).isSameAs(RdmaMetricsRecorder.NONE);
        assertThat(base.configuration().privateData()).isEmpty();

        RdmaSessionConfig last = withPrivateData.configuration().session();
        assertThat(last.mpa()).isEqualTo(mpa);
        assertThat(last.queuePair()).isSameAs(shape);
        assertThat(last.messaging()).isEqualTo(messaging);
        assertThat(last.metrics()).isSameAs(recorder);
        assertThat(last.device()).isSameAs(defaults.device());
        assertThat(withPrivateData.configuration().privateData()).containsExactly(1, 2, 3);
        // What an accessor hands out is a copy too.
        withPrivateData.configuration().privateData()[1] = 9;
        assertThat(withPrivateData.configuration().privateData()).containsExactly(1, 2, 3);

        // Each step changed one thing only.
        assertThat(withMpa.configuration().session().queuePair()).isSameAs(defaults.queuePair());
        assertThat(withQp.configuration().session().mpa()).isEqualTo(mpa);
        assertThat(withQp.configuration().session().messaging()).isEqualTo(MessagingOptions.DEFAULTS);
        assertThat(withMessaging.configuration().session().metrics()).isSameAs(RdmaMetricsRecorder.NONE);
        assertThat(withMetrics.configuration().privateData()).isEmpty();
    }

    @Test
    void theClientTellsItsTcpSettingsThroughItsTcpClient() {
        RdmaClient client = RdmaClient.create().host("127.0.0.1").port(9).connectTimeout(Duration.ofMillis(1500));
        InetSocketAddress remote = (InetSocketAddress) client.tcpClient().configuration().remoteAddress().get();
        assertThat(remote.getHostString()).isEqualTo("127.0.0.1");
        assertThat(remote.getPort()).isEqualTo(9);
        assertThat(client.tcpClient().configuration().options().get(ChannelOption.CONNECT_TIMEOUT_MILLIS))
                .isEqualTo(1500);
        // TCP changes keep the RDMA configuration.
        RdmaClient configured = RdmaClient.create().privateData(new byte[] {5});
        assertThat(configured.host("10.0.0.2").configuration()).isSameAs(configured.configuration());
    }

    @Test
    void eachServerSetterReturnsACopyWithOneThingChangedAndLeavesTheOriginalAlone() {
        RdmaServer base = RdmaServer.create();
        java.util.function.Function<RdmaSession, Mono<Void>> handler = s -> Mono.empty();
        RdmaServer configured = base.maxSessions(3).maxPendingStartups(5).handle(handler)
                .mpa(MpaSettings.defaults().withCrc(false)).host("127.0.0.1").port(0);

        assertThat(base.configuration().maxSessions()).isEqualTo(RdmaServer.DEFAULT_MAX_SESSIONS);
        assertThat(base.configuration().maxPendingStartups()).isEqualTo(StartupLimiter.DEFAULT_MAX_PENDING);
        assertThat(base.configuration().session().mpa()).isEqualTo(RdmaSessionConfig.DEFAULT_MPA);
        assertThat(base.configuration().handler()).isNotSameAs(handler);

        assertThat(configured.configuration().maxSessions()).isEqualTo(3);
        assertThat(configured.configuration().maxPendingStartups()).isEqualTo(5);
        assertThat(configured.configuration().handler()).isSameAs(handler);
        assertThat(configured.configuration().session().mpa().crc()).isFalse();
        assertThat(configured.configuration().session().device()).isSameAs(base.configuration().session().device());
        InetSocketAddress bind = (InetSocketAddress) configured.tcpServer().configuration().bindAddress().get();
        assertThat(bind.getHostString()).isEqualTo("127.0.0.1");
        assertThat(bind.getPort()).isZero();
    }

    @Test
    void badValuesFailOnTheCallersThreadNamingTheSetting() {
        RdmaServer server = RdmaServer.create();
        assertThatThrownBy(() -> server.maxSessions(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxSessions");
        assertThatThrownBy(() -> server.maxPendingStartups(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPendingStartups");
        assertThatThrownBy(() -> server.queuePair(c -> c.withSendQueueDepth(3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sendQueueDepth");
        assertThatThrownBy(() -> server.mpa((MpaSettings) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RdmaClient.create().messaging(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RdmaClient.create().tcpConfiguration(t -> null))
                .isInstanceOf(NullPointerException.class);
    }
}
