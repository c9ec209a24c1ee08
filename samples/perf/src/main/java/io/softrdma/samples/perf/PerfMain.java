package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.mpa.MpaSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The perf sample: runs SoftRDMA's server and client on loopback in one process and measures each
 * test over SoftRDMA and over raw TCP, the same way, in the same run.
 */
public final class PerfMain {
    private PerfMain() {
    }

    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help")) {
            System.out.print(PerfOptions.USAGE);
            return;
        }
        PerfOptions options;
        try {
            options = PerfOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("perf: " + e.getMessage());
            System.err.print(PerfOptions.USAGE);
            System.exit(2);
            return;
        }
        System.exit(run(options) ? 0 : 1);
    }

    static boolean run(PerfOptions options) throws Exception {
        MpaSettings mpa = MpaSettings.defaults().withCrc(options.crc()).withMarkers(options.markers());
        int largest = Collections.max(options.sizes());
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(largest);
        for (int i = 0; i < largest; i++) {
            payload.writeByte(i * 31 + 7);
        }
        List<PerfResult> results = new ArrayList<>();
        try (Loopback loopback = new Loopback(options.transport())) {
            for (String test : options.tests()) {
                for (int size : options.sizes()) {
                    long iterations = options.iterationsFor(test, size);
                    // SoftRDMA on the chosen port; raw TCP on any free port so a capture of the port sees only iWARP.
                    results.add(measure(options, loopback, test, () -> Wire.mpa(mpa), options.port(), payload, size,
                            iterations));
                    results.add(measure(options, loopback, test, Wire::tcp, 0, payload, size, iterations));
                }
            }
        } finally {
            payload.release();
        }
        if (!options.json()) {
            ResultPrinter.printTable(System.out, results, options);
        }
        return true;
    }

    private static PerfResult measure(PerfOptions options, Loopback loopback, String test, Supplier<Wire> wires,
            int port, ByteBuf payload, int size, long iterations) throws Exception {
        String label = wires.get().name() + "-" + test + " " + ResultPrinter.size(size);
        AtomicLong progress = new AtomicLong();
        PerfResult result;
        if (test.equals("stream")) {
            long warmup = Math.min(iterations, Math.max(1_000, iterations / 5));
            StreamTest.run(loopback, port, wires, payload, size, warmup, new AtomicLong());
            try (Progress p = Progress.start(options.progress() && !options.json(), label, iterations, progress)) {
                result = StreamTest.run(loopback, port, wires, payload, size, iterations, progress);
            }
        } else {
            int warmup = (int) Math.min(2_000, iterations);
            try (Progress p = Progress.start(options.progress() && !options.json(), label, warmup + iterations,
                    progress)) {
                result = PingPongTest.run(loopback, port, wires, payload, size, iterations, warmup, progress);
            }
        }
        if (options.json()) {
            ResultPrinter.printJson(System.out, result, options);
        }
        return result;
    }
}
