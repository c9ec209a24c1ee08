package io.softrdma.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.RdmaDevice;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What registering memory costs, as every RDMA Read does for its sink: {@code registerAndClose} registers a buffer in
 * a protection domain (an STag with a random index and key, RFC 5040 §8.1.1 requirement 8) and deregisters it; {@code
 * drawBlock} is one 512-octet block of the unpredictable octets those STags are drawn from, from each of the JDK's
 * {@link SecureRandom} algorithms that could supply them (a registration uses 8 octets of a block).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
public class StagRegistrationBenchmark {
    @Param({"NativePRNG", "DRBG"})
    String algorithm;

    private final byte[] block = new byte[512];
    private SecureRandom random;
    private RdmaDevice device;
    private ProtectionDomain pd;
    private ByteBuf buffer;

    @Setup
    public void setUp() throws NoSuchAlgorithmException {
        random = SecureRandom.getInstance(algorithm);
        device = RdmaDevice.create();
        pd = device.allocateProtectionDomain();
        buffer = Unpooled.directBuffer(64);
    }

    @TearDown
    public void tearDown() {
        pd.close();
        buffer.release();
    }

    @Benchmark
    public byte[] drawBlock() {
        random.nextBytes(block);
        return block;
    }

    /** The same whatever {@code algorithm} says: the device draws from its own source. */
    @Benchmark
    public int registerAndClose() {
        MemoryRegion region = pd.register(buffer.retain(), Set.of(Access.LOCAL_WRITE));
        int stag = region.stag();
        region.close();
        return stag;
    }
}
