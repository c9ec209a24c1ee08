package io.softrdma.samples.messaging;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * The producer: connects and sends numbered messages as fast as {@code send()} asks for them — which is as fast
 * as the consumer's credits allow. It logs its rate every second; {@code GET /stats} shows it, with the credits it
 * holds (at a slow consumer: one, held back).
 */
@Component
@Profile("producer")
@RestController
public class Producer implements ApplicationRunner {
    private static final Log log = LogFactory.getLog(Producer.class);

    private final RdmaClient client;
    private final MessagingProperties properties;
    private final Rate produced = new Rate();
    private volatile RdmaSession session;
    private volatile Disposable sending;
    private volatile boolean done;

    Producer(RdmaClient client, MessagingProperties properties) {
        this.client = client;
        this.properties = properties;
    }

    @Override
    public void run(ApplicationArguments args) {
        RdmaSession s = client.connect().block(Duration.ofSeconds(30));
        session = s;
        int size = Math.toIntExact(properties.messageSize().toBytes());
        long limit = properties.messages() == 0 ? Long.MAX_VALUE : properties.messages();
        Flux<ByteBuf> messages = Flux.<ByteBuf, Long>generate(() -> 0L, (sequence, sink) -> {
            if (sequence >= limit) {
                sink.complete();
                return sequence;
            }
            ByteBuf m = PooledByteBufAllocator.DEFAULT.directBuffer(size);
            m.writeLong(sequence).writeZero(size - 8);
            produced.add();
            if (sequence % 1000 == 0) {
                log.info("produced message " + sequence + " (" + Math.round(produced.perSecond()) + " msgs/s, "
                        + s.statistics().creditsAvailable() + " credit(s) held)");
            }
            sink.next(m);
            return sequence + 1;
        });
        sending = s.send(messages).doFinally(signal -> done = true).subscribe(null,
                t -> log.warn("sending stopped: " + t));
    }

    @GetMapping("/stats")
    Map<String, Object> stats() {
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("produced", produced.count());
        st.put("perSecond", Math.round(produced.perSecond()));
        RdmaSession s = session;
        if (s != null) {
            st.put("creditsAvailable", s.statistics().creditsAvailable());
        }
        st.put("done", done);
        return st;
    }

    long produced() {
        return produced.count();
    }

    /** Stops sending and closes the session when the application stops. */
    @jakarta.annotation.PreDestroy
    void close() {
        Disposable d = sending;
        if (d != null) {
            d.dispose();
        }
        RdmaSession s = session;
        if (s != null) {
            s.dispose();
            s.onDispose().block(Duration.ofSeconds(10));
        }
    }
}
