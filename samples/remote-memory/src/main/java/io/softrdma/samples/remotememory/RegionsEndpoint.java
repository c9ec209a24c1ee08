package io.softrdma.samples.remotememory;

import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.ServerRegion;
import io.softrdma.spring.memory.RdmaMemoryServer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /regions}: the service's regions as it sees them — each one's size, access and leases lent now — with
 * the visits counted in {@code counters} and the prices' revision. The chart's test asks it.
 *
 * <p>Thread safety: thread-safe; each request reads the live state.
 */
@RestController
@Profile("service")
public class RegionsEndpoint {
    private final RdmaMemoryServer memory;
    private final PriceBoard prices;

    RegionsEndpoint(RdmaMemoryServer memory, PriceBoard prices) {
        this.memory = memory;
        this.prices = prices;
    }

    @GetMapping("/regions")
    Map<String, Object> regions() {
        DisposableMemoryServer server = memory.server();
        if (server == null) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "the memory server is not running");
        }
        Map<String, Object> regions = new LinkedHashMap<>();
        for (String name : new TreeSet<>(server.regionNames())) {
            ServerRegion r = server.region(name);
            Map<String, Object> region = new LinkedHashMap<>();
            region.put("size", r.size());
            region.put("access", new TreeSet<>(r.spec().access()));
            region.put("leases", r.leaseCount());
            regions.put(name, region);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("regions", regions);
        answer.put("visits", server.region("counters").getLong(Layout.VISITS));
        answer.put("pricesRevision", prices.revision());
        answer.put("sessions", server.sessionCount());
        return answer;
    }
}
