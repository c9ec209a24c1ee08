package io.softrdma.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.verbs.QueuePairConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every {@code rdma.*} property, bound from text as an application would write it, reaches the library setting it
 * names: MPA ({@link MpaSettings}), queue pair ({@link QueuePairConfig}) and messaging ({@link MessagingOptions}).
 * (What reaches the wire is checked in {@link RdmaAutoConfigurationTests}.)
 */
class RdmaPropertiesMappingTests {
    private static final io.softrdma.verbs.CompletionQueue CQ = io.softrdma.verbs.RdmaDevice.create("mapping")
            .createCompletionQueue(1);

    @Test
    void everyPropertyOfBothSidesReachesItsSetting() {
        for (String side : new String[] {"server", "client"}) {
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
                    .withPropertyValues("rdma." + side + ".mpa.revision=2", "rdma." + side + ".mpa.crc=false",
                            "rdma." + side + ".mpa.markers=true", "rdma." + side + ".mpa.peer-to-peer=read",
                            "rdma." + side + ".mpa.request-timeout=3s", "rdma." + side + ".mpa.reply-timeout=4s",
                            "rdma." + side + ".mpa.accept-timeout=1500ms",
                            "rdma." + side + ".queue-pair.ord=7", "rdma." + side + ".queue-pair.ird=9",
                            "rdma." + side + ".queue-pair.send-queue-depth=40",
                            "rdma." + side + ".queue-pair.receive-queue-depth=50",
                            "rdma." + side + ".queue-pair.atomics=false",
                            "rdma." + side + ".messaging.inline-size=16KB",
                            "rdma." + side + ".messaging.max-message-size=2MB",
                            "rdma." + side + ".messaging.remote-invalidation=false",
                            "rdma." + side + ".messaging.send-window=100",
                            "rdma." + side + ".messaging.send-window-size=256KB",
                            "rdma." + side + ".messaging.max-queued-operations=33",
                            "rdma." + side + ".ssl.enabled=false", "rdma." + side + ".ssl.bundle=b")
                    .run(context -> {
                        RdmaProperties all = context.getBean(RdmaProperties.class);
                        RdmaProperties.Side p = side.equals("server") ? all.getServer() : all.getClient();
                        MpaSettings mpa = RdmaAutoConfiguration.mpa(p.getMpa());
                        assertThat(mpa.revision()).isEqualTo(2); // revision 1: on the wire, in RdmaAutoConfigurationTests
                        assertThat(mpa.crc()).isFalse();
                        assertThat(mpa.markers()).isTrue();
                        assertThat(mpa.peerToPeer()).isEqualTo(PeerToPeerMode.READ);
                        assertThat(mpa.requestTimeout()).isEqualTo(Duration.ofSeconds(3));
                        assertThat(mpa.replyTimeout()).isEqualTo(Duration.ofSeconds(4));
                        assertThat(mpa.acceptTimeout()).isEqualTo(Duration.ofMillis(1500));
                        QueuePairConfig qp = RdmaAutoConfiguration.queuePair(p.getQueuePair())
                                .apply(QueuePairConfig.of(CQ));
                        assertThat(qp.ord()).isEqualTo(7);
                        assertThat(qp.ird()).isEqualTo(9);
                        assertThat(qp.sendQueueDepth()).isEqualTo(40);
                        assertThat(qp.receiveQueueDepth()).isEqualTo(50);
                        assertThat(qp.extensions()).isEqualTo(new io.softrdma.rdmap.RdmapExtensions(false, true));
                        MessagingOptions m = RdmaAutoConfiguration.messaging(p.getMessaging());
                        assertThat(m.inlineSize()).isEqualTo(16 * 1024);
                        assertThat(m.maxMessageSize()).isEqualTo(2 * 1024 * 1024);
                        assertThat(m.remoteInvalidation()).isFalse();
                        assertThat(m.sendWindow()).isEqualTo(100);
                        assertThat(m.sendWindowBytes()).isEqualTo(256 * 1024);
                        assertThat(m.maxQueuedOperations()).isEqualTo(33);
                        assertThat(p.getSsl().isEnabled()).isFalse();
                        assertThat(p.getSsl().getBundle()).isEqualTo("b");
                    });
        }
    }

    @Test
    void theDefaultsAreTheLibrarysOneMpaDefaultForBothSides() {
        RdmaProperties defaults = new RdmaProperties();
        MpaSettings server = RdmaAutoConfiguration.mpa(defaults.getServer().getMpa());
        assertThat(server).isEqualTo(io.softrdma.reactive.RdmaSessionConfig.DEFAULT_MPA);
        MpaSettings client = RdmaAutoConfiguration.mpa(defaults.getClient().getMpa());
        assertThat(client).isEqualTo(io.softrdma.reactive.RdmaSessionConfig.DEFAULT_MPA);
        assertThat(client.peerToPeer()).isEqualTo(PeerToPeerMode.ANY);
        assertThat(RdmaAutoConfiguration.messaging(defaults.getServer().getMessaging()))
                .isEqualTo(MessagingOptions.DEFAULTS);
        // Sessions offer every RFC 7306 extension by default (rdma-reactive's SessionResources).
        QueuePairConfig library = QueuePairConfig.of(CQ).withExtensions(io.softrdma.rdmap.RdmapExtensions.ALL);
        QueuePairConfig mapped = RdmaAutoConfiguration.queuePair(defaults.getServer().getQueuePair()).apply(library);
        assertThat(mapped).isEqualTo(library);
        assertThat(defaults.getClient().getPort()).isEqualTo(io.softrdma.reactive.RdmaServer.DEFAULT_PORT);
        assertThat(RdmaAutoConfiguration.receivePool(defaults.getServer().getReceivePoolSize()).capacity())
                .isEqualTo(io.softrdma.reactive.ReceivePool.DEFAULT_CAPACITY);
    }

    @Test
    void theReceivePoolSizeMakesAPoolOrNone() {
        assertThat(RdmaAutoConfiguration.receivePool(org.springframework.util.unit.DataSize.ofMegabytes(8)).capacity())
                .isEqualTo(8L << 20);
        assertThat(RdmaAutoConfiguration.receivePool(org.springframework.util.unit.DataSize.ofBytes(0))).isNull();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RdmaAutoConfiguration.receivePool(
                org.springframework.util.unit.DataSize.ofBytes(100))).hasMessageContaining("at least 1024");
    }

    @Test
    void revisionOneAloneTurnsTheDefaultPeerToPeerModeOffAndAnExplicitOneFailsWithIt() {
        for (RdmaProperties.Side side : new RdmaProperties.Side[] {new RdmaProperties().getServer(),
                new RdmaProperties().getClient()}) {
            RdmaProperties.Mpa p = side.getMpa();
            p.setRevision(1);
            assertThat(RdmaAutoConfiguration.mpa(p).peerToPeer()).isEqualTo(PeerToPeerMode.OFF);
            p.setPeerToPeer(PeerToPeerMode.WRITE);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RdmaAutoConfiguration.mpa(p))
                    .hasMessageContaining("needs MPA revision 2");
        }
    }
}
