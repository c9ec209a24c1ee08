package io.softrdma.samples.remotememory;

import io.netty.buffer.Unpooled;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.util.retry.Retry;

/**
 * The client: connects over RDMA, learns its handle of the service's region over HTTP and over RDMA (they must
 * agree), RDMA-Reads the whole region and checks it against the checksum the service reports, RDMA-Writes a
 * patch, reads it back, and checks that the service now reports the checksum of the patched content. It repeats
 * every {@code remote-memory.interval}; after {@code remote-memory.rounds} rounds (if not 0) the application exits,
 * with status 0 if every round passed.
 */
public final class RemoteMemoryCheck implements ApplicationRunner {
    private static final Log log = LogFactory.getLog(RemoteMemoryCheck.class);
    private static final int PATCH = 64 * 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /**
     * One round's outcome.
     *
     * @param round its number, from 1
     * @param passed whether every check held
     * @param detail what was checked, or what failed
     */
    public record Result(int round, boolean passed, String detail) {
    }

    private final RdmaClient client;
    private final RemoteMemoryProperties properties;
    private final WebClient http;
    private final ConfigurableApplicationContext context;
    private final List<Result> results = new CopyOnWriteArrayList<>();
    private volatile RdmaSession session;

    RemoteMemoryCheck(RdmaClient client, RemoteMemoryProperties properties, WebClient.Builder http,
            ConfigurableApplicationContext context) {
        this.client = client;
        this.properties = properties;
        this.http = http.baseUrl(properties.serviceUrl()).build();
        this.context = context;
    }

    /**
     * The rounds run so far.
     *
     * @return their results, in order
     */
    public List<Result> results() {
        return List.copyOf(results);
    }

    @Override
    public void run(ApplicationArguments args) {
        Thread t = new Thread(this::loop, "remote-memory-check");
        t.setDaemon(true);
        t.start();
    }

    private void loop() {
        for (int round = 1; properties.rounds() == 0 || round <= properties.rounds(); round++) {
            Result r;
            try {
                r = new Result(round, true, check(round));
            } catch (RuntimeException | AssertionError e) {
                r = new Result(round, false, String.valueOf(e));
            }
            results.add(r);
            log.info("round " + r.round() + (r.passed() ? " passed: " : " FAILED: ") + r.detail());
            if (!context.isActive()) {
                return;
            }
            if (properties.rounds() != 0 && round == properties.rounds()) {
                break;
            }
            try {
                Thread.sleep(properties.interval().toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
        boolean passed = results.stream().allMatch(Result::passed);
        int status = SpringApplication.exit(context, () -> passed ? 0 : 1);
        System.exit(status);
    }

    private RdmaSession session() {
        RdmaSession s = session;
        if (s == null || s.isDisposed()) {
            s = client.connect().block(TIMEOUT);
            session = s;
        }
        return s;
    }

    private String check(int round) {
        RdmaSession s = session();
        String me = RegionService.address(s.connection().localAddress());
        RegionHandle viaHttp = http.get().uri(b -> b.path("/region/handle").queryParam("peer", me).build())
                .retrieve().bodyToMono(RegionHandle.class)
                .retryWhen(Retry.fixedDelay(50, Duration.ofMillis(100))).block(TIMEOUT);
        RegionHandle viaRdma = s.request(Unpooled.copiedBuffer("handle", StandardCharsets.US_ASCII)).map(b -> RegionHandle.decode(b)).block(TIMEOUT);
        require(viaRdma.equals(viaHttp), "the handle over RDMA " + viaRdma + " differs from HTTP's " + viaHttp);
        RemoteMemory remote = viaRdma.toRemoteMemory();
        int length = (int) remote.length();

        byte[] content = read(s, remote);
        String before = serviceSha256();
        require(SharedRegion.sha256(content).equals(before), "the region read over RDMA (sha256 "
                + SharedRegion.sha256(content) + ") is not what the service holds (" + before + ")");

        int offset = (int) ((long) (round - 1) * PATCH % Math.max(1, length - PATCH + 1));
        byte[] patch = SharedRegion.pattern(Math.min(PATCH, length), properties.seed() + round);
        s.write(remote.slice(offset, patch.length), Unpooled.wrappedBuffer(patch)).block(TIMEOUT);
        byte[] back = read(s, remote.slice(offset, patch.length));
        require(java.util.Arrays.equals(back, patch), "the patch read back differs from the one written");
        System.arraycopy(patch, 0, content, offset, patch.length);
        String after = serviceSha256();
        require(SharedRegion.sha256(content).equals(after), "the service's region (sha256 " + after
                + ") does not hold the patch written over RDMA");
        return "read " + length + " octets (sha256 " + before.substring(0, 16) + "…), wrote " + patch.length
                + " at offset " + offset + ", read them back, service sha256 now " + after.substring(0, 16) + "…";
    }

    private static byte[] read(RdmaSession s, RemoteMemory remote) {
        return s.read(remote).map(b -> {
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        }).block(TIMEOUT);
    }

    private String serviceSha256() {
        Map<String, Object> region = http.get().uri("/region").retrieve()
                .bodyToMono(new ParameterizedTypeReference<Map<String, Object>>() { }).block(TIMEOUT);
        return String.valueOf(region.get("sha256"));
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }

    /** Closes the RDMA session when the application stops. */
    void close() {
        RdmaSession s = session;
        if (s != null) {
            s.dispose();
            s.onDispose().block(TIMEOUT);
        }
    }
}
