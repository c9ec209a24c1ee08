package io.softrdma.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.util.DefaultPayload;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class SmokeTest {
    @Test
    void requestResponseAndStream() {
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                String s = p.getDataUtf8();
                p.release();
                return Mono.just(DefaultPayload.create("echo " + s));
            }

            @Override
            public Flux<Payload> requestStream(Payload p) {
                p.release();
                return Flux.range(0, 1000).map(i -> DefaultPayload.create(new byte[i % 10 == 0 ? 100_000 : 10]));
            }
        })).bind(RdmaServerTransport.create("127.0.0.1", 0)).block(Duration.ofSeconds(10));
        try {
            RSocket client = RSocketConnector.connectWith(RdmaClientTransport.create("127.0.0.1",
                    server.address().getPort())).block(Duration.ofSeconds(10));
            String r = client.requestResponse(DefaultPayload.create("hi")).map(p -> {
                String s = p.getDataUtf8();
                p.release();
                return s;
            }).block(Duration.ofSeconds(10));
            assertThat(r).isEqualTo("echo hi");
            Long n = client.requestStream(DefaultPayload.create("x")).doOnNext(Payload::release).count()
                    .block(Duration.ofSeconds(20));
            assertThat(n).isEqualTo(1000);
            client.dispose();
        } finally {
            server.dispose();
        }
    }
}
