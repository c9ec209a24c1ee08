package io.softrdma.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;

/**
 * The server half of {@link TwoProcessTest}, run in its own JVM: prints {@code PORT n} once bound;
 * each session registers 64 KiB for the peer to RDMA Read, answers the request "region" with that
 * region's STag, tagged offset and length, and echoes any other request. Exits when stdin closes.
 */
public final class EchoServerMain {
    private EchoServerMain() {
    }

    public static void main(String[] args) throws Exception {
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).handle(session -> {
            LocalRegion region = session.allocate(64 * 1024, Access.REMOTE_READ);
            for (int i = 0; i < region.length(); i++) {
                region.buffer().setByte(i, i % 251);
            }
            session.respond(request -> {
                String text = request.toString(StandardCharsets.UTF_8);
                if (text.equals("region")) {
                    RemoteMemory r = region.remote();
                    ByteBuf answer = Unpooled.buffer(16).writeInt(r.stag()).writeLong(r.taggedOffset())
                            .writeInt((int) r.length());
                    return Mono.just(answer);
                }
                return Mono.just(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
            }, 4);
            return session.onDispose().doFinally(s -> region.dispose());
        }).bindNow();
        System.out.println("PORT " + server.port());
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the test closes our stdin
        }
        server.disposeNow(java.time.Duration.ofSeconds(5));
    }
}
