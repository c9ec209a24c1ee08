package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.ddp.TaggedHeaderCodec;
import io.softrdma.ddp.UntaggedHeaderCodec;
import io.softrdma.testing.LeakCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Segmentation and reassembly (RFC 5041 §5, RFC 5040 §5.1-§5.3) as properties, over one loopback
 * connection for the whole class: a Send, an RDMA Write and an RDMA Read of any size up to ~300 KB —
 * with extra weight on the sizes around multiples of the payload a segment can carry, computed from the
 * negotiated MULPDU (RFC 5044 §4.5) less the DDP header — gathered from and scattered into any layout of
 * one to six scatter/gather entries at any offsets in registered regions, deliver exactly the source
 * octets to the right place, and touch no octet outside the target range (nor the source).
 */
class SegmentationProperties {
    private static final int MAX_SIZE = 300 * 1024;
    private static final int MAX_GAP = 97;

    private static Loopback lb;
    /** Payload octets per segment, client to server (Send, Write) and server to client (Read Response). */
    private static int sendPayload;
    private static int writePayload;
    private static int readResponsePayload;
    private static long wrIds;

    @BeforeContainer
    static void connect() throws Exception {
        lb = new Loopback();
        int clientMulpdu = lb.client.connection.negotiation().mulpdu();
        int serverMulpdu = lb.server.connection.negotiation().mulpdu();
        sendPayload = clientMulpdu - UntaggedHeaderCodec.LENGTH;
        writePayload = clientMulpdu - TaggedHeaderCodec.LENGTH;
        readResponsePayload = serverMulpdu - TaggedHeaderCodec.LENGTH;
    }

    @AfterContainer
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

    // ---- properties ----

    @Property(tries = 200)
    void aSendDeliversExactlyItsGatheredOctetsIntoTheScatteredReceive(@ForAll("sendSizes") int size,
            @ForAll("layouts") Layout gather, @ForAll("layouts") Layout scatter, @ForAll("spare") int spare,
            @ForAll long seed) throws Exception {
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

    @Property(tries = 200)
    void aWritePlacesExactlyItsGatheredOctetsAtTheTaggedOffset(@ForAll("writeSizes") int size,
            @ForAll("layouts") Layout gather, @ForAll("remote") Remote remote, @ForAll long seed) throws Exception {
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

    @Property(tries = 200)
    void aReadPlacesExactlyTheRemoteOctetsIntoItsSink(@ForAll("readSizes") int size, @ForAll("remote") Remote remote,
            @ForAll("remote") Remote local, @ForAll long seed) throws Exception {
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

    @Provide
    Arbitrary<Integer> sendSizes() {
        return sizes(sendPayload);
    }

    @Provide
    Arbitrary<Integer> writeSizes() {
        return sizes(writePayload);
    }

    @Provide
    Arbitrary<Integer> readSizes() {
        return sizes(readResponsePayload);
    }

    /** Any size up to MAX_SIZE, small sizes, and the sizes next to 1 to 4 segments' payload. */
    private static Arbitrary<Integer> sizes(int perSegment) {
        TreeSet<Integer> edges = new TreeSet<>(List.of(0, 1, 2));
        for (int k = 1; k * perSegment + 1 <= MAX_SIZE; k++) {
            edges.addAll(List.of(k * perSegment - 1, k * perSegment, k * perSegment + 1));
        }
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(0, MAX_SIZE)),
                Tuple.of(4, Arbitraries.of(new ArrayList<>(edges))),
                Tuple.of(2, Arbitraries.integers().between(0, 2048)));
    }

    /** Extra receive capacity beyond the Send's length: none, a little, or a lot. */
    @Provide
    Arbitrary<Integer> spare() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0)),
                Tuple.of(3, Arbitraries.integers().between(1, 64)),
                Tuple.of(2, Arbitraries.integers().between(65, 100_000)));
    }

    @Provide
    Arbitrary<Layout> layouts() {
        Arbitrary<List<Double>> cuts = Arbitraries.doubles().between(0, 1).list().ofMaxSize(5);
        Arbitrary<List<Integer>> gaps = Arbitraries.integers().between(0, MAX_GAP).list().ofSize(7);
        return Combinators.combine(cuts, gaps, Arbitraries.of(true, false), Arbitraries.longs())
                .as(Layout::new);
    }

    @Provide
    Arbitrary<Remote> remote() {
        Arbitrary<Integer> gap = Arbitraries.integers().between(0, MAX_GAP);
        Arbitrary<Long> base = Arbitraries.oneOf(Arbitraries.just(0L),
                Arbitraries.longs().between(1, 1L << 62));
        return Combinators.combine(gap, gap, base).as(Remote::new);
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
                SegmentationProperties.fill(r, sentinel);
            }
        }

        byte[][] images() {
            return regions.stream().map(SegmentationProperties::image).toArray(byte[][]::new);
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

    /** Nothing completed that the property did not wait for. */
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
