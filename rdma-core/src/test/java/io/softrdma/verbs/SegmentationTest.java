package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.testing.LeakCheck;
import io.softrdma.testing.LeakCheckAfterLastInvocation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Segmentation and reassembly (RFC 5041 §5, RFC 5040 §5.1-§5.3) over generated cases, over one loopback
 * connection for the whole class: a Send, an RDMA Write and an RDMA Read of any size up to ~300 KB —
 * with extra weight on the sizes around multiples of the payload a segment can carry, computed from the
 * negotiated MULPDU (RFC 5044 §4.5) less the DDP header — gathered from and scattered into any layout of
 * one to six scatter/gather entries at any offsets in registered regions, deliver exactly the source
 * octets to the right place, and touch no octet outside the target range (nor the source).
 *
 * <p>Each random case draws its values from a {@link SplittableRandom} seeded with the number in its
 * display name, so a failing case reruns as it failed. The edge cases then run every edge size — 0, 1,
 * 2, 2047, 2048, 300 KiB and one octet less, and one less, as many and one more octets than k segments
 * carry for every k that fits — with the edge layouts (one entry; six entries, empty ones among them, in regions of their own or
 * shuffled in one region; no gaps and 97-octet gaps), receive spares (0, 1, 64, 65, 100000), remote
 * ranges (no gaps, 97-octet gaps, tagged offset 0, 1, 2^62) and fill seeds (0, 1, -1, the largest and
 * the smallest long) in turn.
 */
class SegmentationTest {
    private static final int MAX_SIZE = 300 * 1024;
    private static final int MAX_GAP = 97;
    /** Random cases per operation; each is one test, named by its seed. */
    private static final int RANDOM_CASES = 200;

    private static Loopback lb;
    /** Payload octets per segment, client to server (Send, Write) and server to client (Read Response). */
    private static int sendPayload;
    private static int writePayload;
    private static int readResponsePayload;
    private static long wrIds;

    @BeforeAll
    static void connect() throws Exception {
        lb = new Loopback();
        int clientMulpdu = lb.client.connection.negotiation().mulpdu();
        int serverMulpdu = lb.server.connection.negotiation().mulpdu();
        sendPayload = clientMulpdu - UntaggedHeaderCodec.LENGTH;
        writePayload = clientMulpdu - TaggedHeaderCodec.LENGTH;
        readResponsePayload = serverMulpdu - TaggedHeaderCodec.LENGTH;
    }

    @AfterAll
    static void closeAndCheckLeaks() throws Exception {
        try {
            if (lb != null) {
                lb.close();
            }
        } finally {
            lb = null;
            LeakCheck.assertNoLeaks();
        }
    }

    // ---- random cases ----

    static LongStream seeds() {
        return LongStream.rangeClosed(1, RANDOM_CASES);
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSendDeliversExactlyItsGatheredOctetsIntoTheScatteredReceive(long seed) throws Exception {
        Generator g = new Generator(seed);
        send(g.size(sendPayload), g.layout(), g.layout(), g.spare(), g.nextLong());
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aWritePlacesExactlyItsGatheredOctetsAtTheTaggedOffset(long seed) throws Exception {
        Generator g = new Generator(seed);
        write(g.size(writePayload), g.layout(), g.remote(), g.nextLong());
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aReadPlacesExactlyTheRemoteOctetsIntoItsSink(long seed) throws Exception {
        Generator g = new Generator(seed);
        read(g.size(readResponsePayload), g.remote(), g.remote(), g.nextLong());
    }

    // ---- edge cases ----

    static Stream<Arguments> sendEdges() {
        List<Named<Integer>> sizes = edgeSizes(sendPayload);
        List<Arguments> cases = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            cases.add(Arguments.of(EDGE_SEEDS[i % EDGE_SEEDS.length], sizes.get(i), EDGE_LAYOUTS.get(i % EDGE_LAYOUTS.size()),
                    EDGE_LAYOUTS.get((i + 1) % EDGE_LAYOUTS.size()), EDGE_SPARES[i % EDGE_SPARES.length]));
        }
        return cases.stream();
    }

    static Stream<Arguments> writeEdges() {
        List<Named<Integer>> sizes = edgeSizes(writePayload);
        List<Arguments> cases = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            cases.add(Arguments.of(EDGE_SEEDS[i % EDGE_SEEDS.length], sizes.get(i),
                    EDGE_LAYOUTS.get(i % EDGE_LAYOUTS.size()), EDGE_REMOTES.get(i % EDGE_REMOTES.size())));
        }
        return cases.stream();
    }

    static Stream<Arguments> readEdges() {
        List<Named<Integer>> sizes = edgeSizes(readResponsePayload);
        List<Arguments> cases = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            cases.add(Arguments.of(EDGE_SEEDS[i % EDGE_SEEDS.length], sizes.get(i),
                    EDGE_REMOTES.get(i % EDGE_REMOTES.size()), EDGE_REMOTES.get((i + 1) % EDGE_REMOTES.size())));
        }
        return cases.stream();
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}: {1} octets, gather {2}, scatter {3}, {4} octets spare")
    @MethodSource("sendEdges")
    void aSendOfAnEdgeSizeDeliversExactlyItsGatheredOctets(long seed, int size, Layout gather, Layout scatter,
            int spare) throws Exception {
        send(size, gather, scatter, spare, seed);
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}: {1} octets, gather {2}, target {3}")
    @MethodSource("writeEdges")
    void aWriteOfAnEdgeSizePlacesExactlyItsGatheredOctets(long seed, int size, Layout gather, Remote remote)
            throws Exception {
        write(size, gather, remote, seed);
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}: {1} octets, source {2}, sink {3}")
    @MethodSource("readEdges")
    void aReadOfAnEdgeSizePlacesExactlyTheRemoteOctets(long seed, int size, Remote remote, Remote local)
            throws Exception {
        read(size, remote, local, seed);
    }

    // ---- the checks ----


    private static void send(int size, Layout gather, Layout scatter, int spare, long seed) throws Exception {
        requireConnected();
        List<MemoryRegion> regions = new ArrayList<>();
        try {
            byte sentinel = (byte) seed;
            Placed source = gather.place(size, lb.client, Access.of(Access.LOCAL_WRITE), regions);
            Placed receive = scatter.place(size + spare, lb.server, Access.of(Access.LOCAL_WRITE), regions);
            byte[] message = source.fillRandomly(seed);
            receive.fill(sentinel);
            byte[][] sourceBefore = source.images();

            long recvId = ++wrIds;
            long sendId = ++wrIds;
            lb.server.qp.postReceive(new ReceiveWorkRequest(recvId, receive.sgl()));
            lb.client.qp.postSend(SendWorkRequest.send(sendId, source.sgl()));

            WorkCompletion sent = lb.client.nextSuccess();
            assertThat(sent.wrId()).isEqualTo(sendId);
            assertThat(sent.opcode()).isEqualTo(WorkCompletionOpcode.SEND);
            assertThat(sent.byteLength()).isEqualTo(size);
            WorkCompletion received = lb.server.nextSuccess();
            assertThat(received.wrId()).isEqualTo(recvId);
            assertThat(received.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(received.byteLength()).isEqualTo(size);

            receive.assertHolds(message, sentinel, "receive");
            source.assertImages(sourceBefore, "source");
            assertQuiet();
        } finally {
            regions.forEach(MemoryRegion::close);
        }
    }

    private static void write(int size, Layout gather, Remote remote, long seed) throws Exception {
        requireConnected();
        List<MemoryRegion> regions = new ArrayList<>();
        try {
            byte sentinel = (byte) seed;
            Placed source = gather.place(size, lb.client, Access.of(Access.LOCAL_WRITE), regions);
            MemoryRegion target = remote.register(size, lb.server,
                    Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), regions);
            MemoryRegion noteBuffer = lb.server.allocate(1, Access.LOCAL_WRITE);
            regions.add(noteBuffer);
            byte[] message = source.fillRandomly(seed);
            fill(target, sentinel);
            byte[][] sourceBefore = source.images();

            long recvId = ++wrIds;
            long writeId = ++wrIds;
            long sendId = ++wrIds;
            lb.server.qp.postReceive(ReceiveWorkRequest.of(recvId, ScatterGatherEntry.of(noteBuffer)));
            lb.client.qp.postSend(SendWorkRequest.write(writeId, target.advertise().slice(remote.before, size),
                    source.sgl().toArray(ScatterGatherEntry[]::new)));
            // RFC 5040 §5.5 rule 5: once a later Send is Delivered, the Write is Placed.
            lb.client.qp.postSend(SendWorkRequest.send(sendId));

            WorkCompletion written = lb.client.nextSuccess();
            assertThat(written.wrId()).isEqualTo(writeId);
            assertThat(written.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
            assertThat(written.byteLength()).isEqualTo(size);
            assertThat(lb.client.nextSuccess().wrId()).isEqualTo(sendId);
            WorkCompletion note = lb.server.nextSuccess();
            assertThat(note.wrId()).isEqualTo(recvId);
            assertThat(note.byteLength()).isZero();

            byte[] expected = filled(target.length(), sentinel);
            System.arraycopy(message, 0, expected, remote.before, size);
            OrderingTest.assertSameBytes("the Write's target region", expected, image(target));
            source.assertImages(sourceBefore, "source");
            assertQuiet();
        } finally {
            regions.forEach(MemoryRegion::close);
        }
    }

    private static void read(int size, Remote remote, Remote local, long seed) throws Exception {
        requireConnected();
        List<MemoryRegion> regions = new ArrayList<>();
        try {
            byte sentinel = (byte) seed;
            MemoryRegion source = remote.register(size, lb.server, Access.of(Access.REMOTE_READ), regions);
            MemoryRegion sink = local.register(size, lb.client, Access.of(Access.LOCAL_WRITE), regions);
            byte[] sourceImage = new byte[source.length()];
            new SplittableRandom(seed).nextBytes(sourceImage);
            source.buffer().setBytes(0, sourceImage);
            fill(sink, sentinel);

            long readId = ++wrIds;
            lb.client.qp.postSend(SendWorkRequest.read(readId, new ScatterGatherEntry(sink, local.before, size),
                    source.advertise().slice(remote.before, size)));
            WorkCompletion read = lb.client.nextSuccess();
            assertThat(read.wrId()).isEqualTo(readId);
            assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(read.byteLength()).isEqualTo(size);

            byte[] expected = filled(sink.length(), sentinel);
            System.arraycopy(sourceImage, remote.before, expected, local.before, size);
            OrderingTest.assertSameBytes("the Read's sink region", expected, image(sink));
            OrderingTest.assertSameBytes("the Read's source region", sourceImage, image(source));
            assertQuiet();
        } finally {
            regions.forEach(MemoryRegion::close);
        }
    }

    // ---- generators ----

    /** Fill seeds of the edge cases: their sentinels are 0x00, 0x01 and 0xFF. */
    private static final long[] EDGE_SEEDS = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE};
    private static final int[] EDGE_SPARES = {0, 1, 64, 65, 100_000};
    private static final List<Integer> NO_GAPS = List.of(0, 0, 0, 0, 0, 0, 0);
    private static final List<Integer> WIDE_GAPS = List.of(MAX_GAP, MAX_GAP, MAX_GAP, MAX_GAP, MAX_GAP, MAX_GAP, MAX_GAP);
    private static final List<Named<Layout>> EDGE_LAYOUTS = List.of(
            Named.of("1 entry, no gaps", new Layout(List.of(), NO_GAPS, false, 0)),
            Named.of("1 entry, 97-octet gaps", new Layout(List.of(), WIDE_GAPS, true, 0)),
            Named.of("6 entries in own regions, the first and last empty, no gaps",
                    new Layout(List.of(0.0, 0.25, 0.5, 0.75, 1.0), NO_GAPS, false, 0)),
            Named.of("6 entries shuffled in one region, 97-octet gaps",
                    new Layout(List.of(0.9, 0.1, 0.7, 0.3, 0.5), WIDE_GAPS, true, 1)),
            Named.of("6 entries in one region, 4 of them empty, no gaps",
                    new Layout(List.of(0.5, 0.5, 0.5, 0.5, 0.5), NO_GAPS, true, -1)),
            Named.of("2 entries in own regions, the second empty, 97-octet gaps",
                    new Layout(List.of(1.0), WIDE_GAPS, false, 0)));
    private static final List<Named<Remote>> EDGE_REMOTES = List.of(
            Named.of("no gaps, tagged offset 0", new Remote(0, 0, 0)),
            Named.of("97-octet gaps, tagged offset 2^62", new Remote(MAX_GAP, MAX_GAP, 1L << 62)),
            Named.of("no gap before, 97 after, tagged offset 1", new Remote(0, MAX_GAP, 1)),
            Named.of("97-octet gap before, none after, tagged offset 0", new Remote(MAX_GAP, 0, 0)));

    /** Small sizes, and the sizes next to each multiple of a segment's payload up to MAX_SIZE. */
    private static List<Integer> segmentEdges(int perSegment) {
        TreeSet<Integer> edges = new TreeSet<>(List.of(0, 1, 2));
        for (int k = 1; k * perSegment + 1 <= MAX_SIZE; k++) {
            edges.addAll(List.of(k * perSegment - 1, k * perSegment, k * perSegment + 1));
        }
        return new ArrayList<>(edges);
    }

    /** The segment edges, and the bounds of the ranges the random sizes come from, named. */
    private static List<Named<Integer>> edgeSizes(int perSegment) {
        if (perSegment <= 0) {
            throw new IllegalStateException("the loopback connection is not set up: " + perSegment);
        }
        TreeSet<Integer> sizes = new TreeSet<>(segmentEdges(perSegment));
        sizes.addAll(List.of(2047, 2048, MAX_SIZE - 1, MAX_SIZE));
        return sizes.stream().map(n -> {
            int k = (n + 1) / perSegment;
            String name = k == 0 || Math.abs(n - k * perSegment) > 1 ? Integer.toString(n)
                    : n + " (" + k + " segments' payload" + (n == k * perSegment ? ""
                            : n < k * perSegment ? " - 1" : " + 1") + ")";
            return Named.of(name, n);
        }).toList();
    }

    /**
     * The random values of one case, drawn from one seeded {@link SplittableRandom} with the weights of
     * the property-based generators these cases replace: sizes 4 in 10 anywhere up to MAX_SIZE, 4 in 10
     * next to a multiple of a segment's payload, 2 in 10 up to 2048; receive spares 3 in 8 none, 3 in 8
     * 1-64 and 2 in 8 65-100000; 0-5 cut points and 7 gaps of 0-97 octets per layout, each 1 in 10 an
     * edge value; remote tagged offsets half 0 and half 1-2^62.
     */
    static final class Generator {
        private final SplittableRandom random;

        Generator(long seed) {
            random = new SplittableRandom(seed);
        }

        int size(int perSegment) {
            int pick = random.nextInt(10);
            if (pick < 4) {
                return random.nextInt(0, MAX_SIZE + 1);
            }
            if (pick < 8) {
                List<Integer> edges = segmentEdges(perSegment);
                return edges.get(random.nextInt(edges.size()));
            }
            return random.nextInt(0, 2049);
        }

        /** Extra receive capacity beyond the Send's length: none, a little, or a lot. */
        int spare() {
            int pick = random.nextInt(8);
            if (pick < 3) {
                return 0;
            }
            return pick < 6 ? random.nextInt(1, 65) : random.nextInt(65, 100_001);
        }

        Layout layout() {
            List<Double> cuts = new ArrayList<>();
            for (int n = random.nextInt(0, 6), i = 0; i < n; i++) {
                cuts.add(random.nextInt(10) == 0 ? (random.nextBoolean() ? 0.0 : 1.0) : random.nextDouble());
            }
            List<Integer> gaps = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                gaps.add(gap());
            }
            return new Layout(cuts, gaps, random.nextBoolean(), random.nextLong());
        }

        Remote remote() {
            int before = gap();
            int after = gap();
            return new Remote(before, after, random.nextBoolean() ? 0 : random.nextLong(1, (1L << 62) + 1));
        }

        long nextLong() {
            return random.nextLong();
        }

        private int gap() {
            return random.nextInt(10) == 0 ? (random.nextBoolean() ? 0 : MAX_GAP) : random.nextInt(0, MAX_GAP + 1);
        }
    }

    // ---- layouts ----

    /**
     * How a message is cut into 1 to 6 scatter/gather entries (cut at the given fractions of its length,
     * so entries may be empty) and where they lie: each in a region of its own with gaps before and
     * after it, or all in one region, in shuffled order, with gaps between them.
     */
    record Layout(List<Double> cuts, List<Integer> gaps, boolean shared, long shuffleSeed) {

        Placed place(int length, Loopback.Side side, Set<Access> access, List<MemoryRegion> regions) {
            int k = cuts.size() + 1;
            int[] bounds = new int[k + 1];
            bounds[k] = length;
            double[] sorted = cuts.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            for (int i = 0; i < sorted.length; i++) {
                bounds[i + 1] = (int) (sorted[i] * length);
            }
            int[] parts = new int[k];
            for (int i = 0; i < k; i++) {
                parts[i] = bounds[i + 1] - bounds[i];
            }
            List<ScatterGatherEntry> sgl = new ArrayList<>();
            List<MemoryRegion> own = new ArrayList<>();
            if (!shared) {
                for (int i = 0; i < k; i++) {
                    int before = gaps.get(i);
                    int after = gaps.get(i + 1);
                    MemoryRegion r = side.pd.allocate(Math.max(1, before + parts[i] + after), access);
                    regions.add(r);
                    own.add(r);
                    sgl.add(new ScatterGatherEntry(r, before, parts[i]));
                }
            } else {
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    order.add(i);
                }
                java.util.Collections.shuffle(order, new Random(shuffleSeed));
                long[] offsets = new long[k];
                int at = gaps.get(0);
                for (int j = 0; j < k; j++) {
                    int i = order.get(j);
                    offsets[i] = at;
                    at += parts[i] + gaps.get(j + 1);
                }
                MemoryRegion r = side.pd.allocate(Math.max(1, at), access);
                regions.add(r);
                own.add(r);
                for (int i = 0; i < k; i++) {
                    sgl.add(new ScatterGatherEntry(r, offsets[i], parts[i]));
                }
            }
            return new Placed(sgl, own);
        }
    }

    /** A registered buffer holding a target range, with gaps before and after it and a base tagged offset. */
    record Remote(int before, int after, long baseTaggedOffset) {

        MemoryRegion register(int size, Loopback.Side side, Set<Access> access, List<MemoryRegion> regions) {
            int length = Math.max(1, before + size + after);
            ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
            try {
                MemoryRegion r = side.pd.register(memory, access, baseTaggedOffset);
                regions.add(r);
                return r;
            } finally {
                memory.release();
            }
        }
    }

    /** Scatter/gather entries placed in their regions. */
    record Placed(List<ScatterGatherEntry> sgl, List<MemoryRegion> regions) {

        /** Fills every region with random octets; returns the message the entries hold, in order. */
        byte[] fillRandomly(long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            for (MemoryRegion r : regions) {
                byte[] b = new byte[r.length()];
                random.nextBytes(b);
                r.buffer().setBytes(0, b);
            }
            int n = 0;
            for (ScatterGatherEntry e : sgl) {
                n += e.length();
            }
            byte[] message = new byte[n];
            int at = 0;
            for (ScatterGatherEntry e : sgl) {
                e.region().buffer().getBytes((int) e.offset(), message, at, e.length());
                at += e.length();
            }
            return message;
        }

        void fill(byte sentinel) {
            for (MemoryRegion r : regions) {
                SegmentationTest.fill(r, sentinel);
            }
        }

        byte[][] images() {
            return regions.stream().map(SegmentationTest::image).toArray(byte[][]::new);
        }

        void assertImages(byte[][] expected, String what) {
            for (int i = 0; i < regions.size(); i++) {
                OrderingTest.assertSameBytes(what + " region " + i, expected[i], image(regions.get(i)));
            }
        }

        /**
         * The entries hold {@code message} from their start, in order (the rest of the entries, beyond
         * the message, keeps the sentinel), and every octet outside them keeps the sentinel.
         */
        void assertHolds(byte[] message, byte sentinel, String what) {
            List<byte[]> expected = new ArrayList<>();
            for (MemoryRegion r : regions) {
                expected.add(filled(r.length(), sentinel));
            }
            int at = 0;
            for (ScatterGatherEntry e : sgl) {
                int n = Math.min(e.length(), message.length - at);
                System.arraycopy(message, at, expected.get(regions.indexOf(e.region())), (int) e.offset(), n);
                at += n;
            }
            for (int i = 0; i < regions.size(); i++) {
                OrderingTest.assertSameBytes(what + " region " + i + " of " + regions.size() + " (entries " + describe()
                        + ")", expected.get(i), image(regions.get(i)));
            }
        }

        private String describe() {
            return sgl.stream().map(e -> regions.indexOf(e.region()) + "@" + e.offset() + "+" + e.length()).toList()
                    .toString();
        }
    }

    // ---- helpers ----

    private static void requireConnected() {
        assertThat(lb.client.qp.state()).as("the client queue pair (events %s)", lb.client.events)
                .isEqualTo(QueuePairState.RTS);
        assertThat(lb.server.qp.state()).as("the server queue pair (events %s)", lb.server.events)
                .isEqualTo(QueuePairState.RTS);
    }

    /** Nothing completed that the case did not wait for. */
    private static void assertQuiet() {
        assertThat(lb.client.cq.size()).as("extra client completions").isZero();
        assertThat(lb.server.cq.size()).as("extra server completions").isZero();
    }

    static byte[] image(MemoryRegion r) {
        return ByteBufUtil.getBytes(r.buffer(), 0, r.length());
    }

    static void fill(MemoryRegion r, byte value) {
        r.buffer().setBytes(0, filled(r.length(), value));
    }

    private static byte[] filled(int length, byte value) {
        byte[] b = new byte[length];
        Arrays.fill(b, value);
        return b;
    }
}
