package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.softrdma.cm.RdmaPipeline;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The TCP options come from one list, RdmaPipeline.applyOptions, for the client, the server and rdma-core. */
class RdmaTcpOptionsTest {

    private static Map<ChannelOption<?>, Object> theList() {
        Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
        RdmaPipeline.applyOptions(options::put);
        return options;
    }

    @Test
    void theListNamesTheFourOptions() {
        assertThat(theList()).containsOnlyKeys(ChannelOption.TCP_NODELAY, ChannelOption.ALLOCATOR,
                ChannelOption.WRITE_BUFFER_WATER_MARK, ChannelOption.RCVBUF_ALLOCATOR)
                .containsEntry(ChannelOption.TCP_NODELAY, true)
                .containsEntry(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .containsEntry(ChannelOption.WRITE_BUFFER_WATER_MARK, RdmaPipeline.WATER_MARK)
                .containsEntry(ChannelOption.RCVBUF_ALLOCATOR, RdmaPipeline.READ_BUFFERS);
    }

    @Test
    void theClientAndEachServerConnectionGetTheList() {
        Map<ChannelOption<?>, ?> client = RdmaClient.create().tcpConfiguration(t -> t.wiretap(false)).tcpClient()
                .configuration().options();
        Map<ChannelOption<?>, ?> server = RdmaServer.create().tcpConfiguration(t -> t.wiretap(false)).tcpServer()
                .configuration().childOptions();
        theList().forEach((option, value) -> {
            assertThat(client.get(option)).as("client %s", option).isEqualTo(value);
            assertThat(server.get(option)).as("server %s", option).isEqualTo(value);
        });
    }

    @Test
    void theConnectedChannelsOfBothEndsHaveThem() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            for (Channel channel : new Channel[] {pair.client.connection().channel(),
                    pair.serverSession.connection().channel()}) {
                assertThat(channel.config().getOption(ChannelOption.TCP_NODELAY)).isTrue();
                assertThat(channel.config().getAllocator()).isSameAs(PooledByteBufAllocator.DEFAULT);
                assertThat(channel.config().getWriteBufferWaterMark()).isSameAs(RdmaPipeline.WATER_MARK);
                assertThat((Object) channel.config().getRecvByteBufAllocator()).isSameAs(RdmaPipeline.READ_BUFFERS);
            }
        }
    }
}
