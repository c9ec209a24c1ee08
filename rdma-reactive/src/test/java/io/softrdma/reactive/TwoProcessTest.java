package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.RemoteMemory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** A client in this JVM against {@link EchoServerMain} in another: requests, and one-sided Reads. */
class TwoProcessTest {
    @Test
    void requestsAndRdmaReadsAcrossProcesses() throws Exception {
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), EchoServerMain.class.getName())
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("PORT ")) {
                // the server's log lines, if any
            }
            assertThat(line).as("the server process printed its port").isNotNull();
            int port = Integer.parseInt(line.substring(5).trim());
            RdmaSession client = RdmaClient.create().host("127.0.0.1").port(port).connect()
                    .block(Duration.ofSeconds(10));
            StepVerifier.create(Flux.range(0, 100).flatMap(i -> client.request(Unpooled.copiedBuffer("ping " + i,
                    StandardCharsets.UTF_8)).map(b -> text(b).equals("ping " + i)), 4).all(ok -> ok))
                    .expectNext(true).expectComplete().verify(Duration.ofSeconds(10));
            RemoteMemory region = client.request(Unpooled.copiedBuffer("region", StandardCharsets.UTF_8))
                    .map(answer -> new RemoteMemory(answer.readInt(), answer.readLong(), answer.readInt()))
                    .block(Duration.ofSeconds(10));
            StepVerifier.create(client.read(region).map(b -> {
                for (int i = 0; i < b.readableBytes(); i++) {
                    if (b.getUnsignedByte(i) != i % 251) {
                        return false;
                    }
                }
                return b.readableBytes() == 64 * 1024;
            })).expectNext(true).expectComplete().verify(Duration.ofSeconds(10));
            client.dispose();
            client.onDispose().block(Duration.ofSeconds(10));
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
