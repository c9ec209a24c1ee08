package io.softrdma.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.RdmaDevice;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

/**
 * The RPC-over-RDMA examples of docs/rpc-rdma.md and of RpcRdmaClient's and RpcRdmaServer's Javadoc, word for word
 * (regions {@code rpc-*}; rdma-reactive's DocumentationExamplesTest checks that no example is outside a region), run
 * Java requester against Java responder over loopback.
 */
class RpcDocumentationExamplesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** The NFSv4 program the examples call: NULL answers nothing; READ (procedure 1) returns 64 KiB as bulk. */
    private static ByteBuf encodeResults(RpcCallHeader call) {
        return Unpooled.buffer(4).writeInt(call.procedure());
    }

    private static ByteBuf readBulk(RpcCallHeader call) {
        return call.procedure() == 1 ? PooledByteBufAllocator.DEFAULT.directBuffer(65536).writeZero(65536)
                : Unpooled.EMPTY_BUFFER;
    }

    @Test
    void theNfsExamplesRun() {
        String host = "127.0.0.1";
        int port = 0;
        // tag::rpc-server[]
        RpcRdmaServer.Bound server = RpcRdmaServer.create().port(port).handler((call, args) ->
                Mono.fromSupplier(() -> RpcResult.success(encodeResults(call), readBulk(call)))).bind(); // bulk → Write chunk
        // end::rpc-server[]
        port = server.port();
        ByteBuf compoundArgs = Unpooled.buffer(8).writeLong(0);
        try {
            // tag::rpc-client[]
            RpcRdmaConnection nfs = RpcRdmaClient.create().host(host).port(port)
                    .credential(RpcAuth.sys(0, "client", 0, 0)).connect().block();
            RpcReply none = nfs.call(100003, 4, 0, Unpooled.EMPTY_BUFFER).block();        // NFSv4 NULL
            none.release();
            ByteBuf data = PooledByteBufAllocator.DEFAULT.directBuffer(65536);
            RpcReply read = nfs.call(100003, 4, 1, compoundArgs, data).block();           // READ data lands in `data`
            // end::rpc-client[]
            try {
                assertThat(read.writeChunkOctets()).isEqualTo(65536);
                assertThat(data.readableBytes()).isEqualTo(65536);
            } finally {
                read.release();
                data.release();
                nfs.dispose();
                nfs.onDispose().block(TIMEOUT);
            }
        } finally {
            server.dispose();
        }
    }

    @Test
    void theJavadocExamplesRun() {
        // tag::rpc-server-javadoc[]
        RpcRdmaServer.Bound server = RpcRdmaServer.create().port(0).handler((call, args) ->
                Mono.just(RpcResult.success(Unpooled.EMPTY_BUFFER))).bind();
        // end::rpc-server-javadoc[]
        String host = "127.0.0.1";
        int port = server.port();
        try {
            // tag::rpc-client-javadoc[]
            RpcRdmaConnection c = RpcRdmaClient.create().host(host).port(port).connect().block();
            RpcReply reply = c.call(100003, 4, 0, Unpooled.EMPTY_BUFFER).block(); // NFSv4 NULL
            reply.release();
            // end::rpc-client-javadoc[]
            c.dispose();
            c.onDispose().block(TIMEOUT);
        } finally {
            server.dispose();
        }
    }

    @Test
    void theBootstrapExampleRuns() {
        RdmaDevice device = RdmaDevice.create("rpc-docs");
        LoopResources loops = LoopResources.create("rpc-docs", 1, true);
        RpcHandler handler = (call, args) -> Mono.just(RpcResult.success(Unpooled.EMPTY_BUFFER));
        String host = "127.0.0.1";
        try {
            // tag::rpc-bootstrap[]
            RpcRdmaServer.Bound server = RpcRdmaServer.create().port(0).handler(handler)
                    .tcpConfiguration(tcp -> tcp.runOn(loops)).bind();
            RpcRdmaClient client = RpcRdmaClient.create().host(host).port(server.port())
                    .device(device)                                                      // share a device
                    .tcpConfiguration(tcp -> tcp.runOn(loops));                          // reactor-netty LoopResources
            // end::rpc-bootstrap[]
            try {
                RpcRdmaConnection c = client.connect().block(TIMEOUT);
                c.call(100003, 4, 0, Unpooled.EMPTY_BUFFER).block(TIMEOUT).release();
                assertThat(server.server().sessionCount()).isPositive();
                c.dispose();
                c.onDispose().block(TIMEOUT);
            } finally {
                server.dispose();
            }
        } finally {
            loops.disposeLater().block(TIMEOUT);
        }
    }
}
