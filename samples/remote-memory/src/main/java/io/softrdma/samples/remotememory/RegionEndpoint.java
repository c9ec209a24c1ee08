package io.softrdma.samples.remotememory;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The service's HTTP endpoints: {@code GET /region} gives the region's length, its SHA-256 now and the handles lent
 * (by client address); {@code GET /region/handle?peer=host:port} gives the handle lent to one RDMA connection.
 */
@RestController
@Profile("service")
public class RegionEndpoint {
    private final SharedRegion region;
    private final RegionService service;

    RegionEndpoint(SharedRegion region, RegionService service) {
        this.region = region;
        this.service = service;
    }

    @GetMapping("/region")
    Map<String, Object> region() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("length", region.length());
        r.put("sha256", region.sha256());
        r.put("lent", service.handles());
        return r;
    }

    @GetMapping("/region/handle")
    RegionHandle handle(@RequestParam String peer) {
        RegionHandle h = service.handleFor(peer);
        if (h == null) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no RDMA connection from " + peer
                    + " (connect first; the handle is valid only on that connection)");
        }
        return h;
    }
}
