package io.softrdma.fuzz;

import static io.softrdma.fuzz.FuzzSupport.buffers;
import static io.softrdma.fuzz.FuzzSupport.channel;
import static io.softrdma.fuzz.FuzzSupport.drainOutbound;
import static io.softrdma.fuzz.FuzzSupport.expectOnly;
import static io.softrdma.fuzz.FuzzSupport.feed;
import static io.softrdma.fuzz.FuzzSupport.hex;
import static io.softrdma.fuzz.FuzzSupport.register;
import static io.softrdma.fuzz.FuzzSupport.releaseQueued;
import static io.softrdma.fuzz.FuzzSupport.sameBytes;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.fuzz.FuzzSupport.BufferStyle;
import io.softrdma.fuzz.FuzzSupport.Input;
import io.softrdma.fuzz.FuzzSupport.Tail;
import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.internal.mpa.FpduException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RFC 5044 §4 (FPDU format, Markers, CRC) and §8 (framing errors) on the receive side: {@code FpduDecoder}
 * fed in arbitrary reads, with Markers and CRCs on or off, judged against {@link ReferenceFramer}.
 */
@ExtendWith(ClassLeakCheck.class)
class FpduDecoderFuzzTest {

    /** What one decoding run delivered. */
    record Result(List<byte[]> ulpdus, int errorCode, long fpdusReceived) {
    }

    /**
     * Decodes {@code stream} with a fresh decoder on an embedded channel whose every buffer comes from a
     * metered allocator; checks the decoder's own bookkeeping and that nothing leaks.
     */
    static Result decode(byte[] stream, boolean crc, boolean markers, int chunkSpec, BufferStyle style,
            int memoryKind) {
        Memory memory = Memory.of(memoryKind);
        FpduDecoder decoder = new FpduDecoder(crc, markers);
        Tail tail = new Tail();
        EmbeddedChannel ch = channel(memory.alloc);
        ch.pipeline().addLast(decoder, tail);
        register(ch);
        feed(ch, buffers(memory.alloc, stream, chunkSpec, style));
        ch.finishAndReleaseAll();
        releaseQueued(ch);
        memory.assertAllReleased("decoding " + stream.length + " octets (crc=" + crc + " markers=" + markers
                + " chunks=" + chunkSpec + " " + style + " memory " + memoryKind + ")");

        int errorCode = 0;
        for (Throwable t : tail.exceptions) {
            expectOnly(t, "from FpduDecoder", FpduException.class);
            if (errorCode != 0) {
                throw new AssertionError("a second framing error after the first: " + t, t);
            }
            errorCode = ((FpduException) t).code().code();
        }
        if (decoder.fpdusReceived() != tail.messages.size()) {
            throw new AssertionError("fpdusReceived() is " + decoder.fpdusReceived() + " but "
                    + tail.messages.size() + " ULPDUs were passed on");
        }
        if (decoder.isFailed() != (errorCode != 0)) {
            throw new AssertionError("isFailed() is " + decoder.isFailed() + " but error code is " + errorCode);
        }
        for (byte[] u : tail.messages) {
            if (u.length > FpduCodec.MAX_ULPDU_LENGTH) {
                throw new AssertionError("a ULPDU of " + u.length + " octets, above 64768 (RFC 5044 §3)");
            }
        }
        return new Result(tail.messages, errorCode, decoder.fpdusReceived());
    }

    static void assertSame(String what, ReferenceFramer.Parsed expected, Result actual) {
        if (expected.errorCode() != actual.errorCode() || !sameBytes(expected.ulpdus(), actual.ulpdus())) {
            throw new AssertionError(what + ": expected ULPDUs " + hex(expected.ulpdus()) + " and error code "
                    + expected.errorCode() + ", the decoder delivered " + hex(actual.ulpdus()) + " and error code "
                    + actual.errorCode());
        }
    }

    /**
     * Arbitrary octets as the received stream. Input: options (bit 0 CRC, bit 1 Markers, bits 2-3 buffer
     * style, bits 4-5 {@link Memory} kind), the read pattern, then the stream.
     */
    @FuzzTest(maxDuration = "60s")
    void rawStream(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int options = in.u8();
        int chunkSpec = in.u8();
        byte[] stream = in.rest();
        boolean crc = (options & 1) != 0;
        boolean markers = (options & 2) != 0;
        BufferStyle style = BufferStyle.of(options >>> 2);
        int memoryKind = options >>> 4;

        ReferenceFramer.Parsed expected = ReferenceFramer.parse(stream, crc, markers);
        assertSame("in reads " + Arrays.toString(FuzzSupport.chunks(chunkSpec, stream.length)) + " of " + style,
                expected, decode(stream, crc, markers, chunkSpec, style, memoryKind));
        if (chunkSpec != 0) {
            assertSame("in one read", expected, decode(stream, crc, markers, 0, BufferStyle.DIRECT, 0));
        }
        // The logging helper must cope with any octets too.
        ByteBuf b = Unpooled.wrappedBuffer(stream);
        FpduCodec.describe(b, 0);
        b.release();
    }

    /**
     * Fuzzer-chosen ULPDUs, framed by the reference framer (and, as a cross-check, by rdma-core's
     * {@code FpduEncoder}, which must produce the same octets), optionally with one octet corrupted, then
     * decoded in arbitrary reads. Input: options (bit 0 CRC, bit 1 Markers, bits 2-3 buffer style, bits 4-5
     * {@link Memory} kind, bit 6 corrupt), the read pattern, the corruption's position (16 bits) and XOR
     * mask, then ULPDUs, each behind a 16-bit length.
     */
    @FuzzTest(maxDuration = "60s")
    void framedUlpdus(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int options = in.u8();
        int chunkSpec = in.u8();
        int corruptAt = in.u16();
        int corruptMask = in.u8();
        boolean crc = (options & 1) != 0;
        boolean markers = (options & 2) != 0;
        BufferStyle style = BufferStyle.of(options >>> 2);
        int memoryKind = options >>> 4;
        boolean corrupt = (options & 0x40) != 0;
        List<byte[]> ulpdus = new ArrayList<>();
        while (in.remaining() >= 2 && ulpdus.size() < 64) {
            ulpdus.add(in.take(Math.min(in.u16(), FpduCodec.MAX_ULPDU_LENGTH)));
        }

        byte[] wire = ReferenceFramer.frame(ulpdus, crc, markers);
        byte[] encoded = encodeWithFpduEncoder(ulpdus, crc, markers, memoryKind);
        if (!Arrays.equals(wire, encoded)) {
            throw new AssertionError("FpduEncoder(crc=" + crc + ", markers=" + markers + ") framed " + hex(ulpdus)
                    + " as " + hex(encoded) + ", RFC 5044 §4 gives " + hex(wire));
        }
        ReferenceFramer.Parsed expected = new ReferenceFramer.Parsed(ulpdus, 0);
        if (corrupt && wire.length > 0) {
            wire[corruptAt % wire.length] ^= (byte) (corruptMask == 0 ? 1 : corruptMask);
            expected = ReferenceFramer.parse(wire, crc, markers);
        }
        assertSame("framed ULPDUs" + (corrupt ? " (corrupted)" : ""), expected,
                decode(wire, crc, markers, chunkSpec, style, memoryKind));
    }

    /** The octets rdma-core's encoder sends for {@code ulpdus} from stream octet 0. */
    static byte[] encodeWithFpduEncoder(List<byte[]> ulpdus, boolean crc, boolean markers, int memoryKind) {
        Memory memory = Memory.of(memoryKind);
        EmbeddedChannel ch = channel(memory.alloc);
        Tail tail = new Tail();
        ch.pipeline().addLast(new FpduEncoder(crc, markers, false), tail);
        register(ch);
        for (byte[] u : ulpdus) {
            ByteBuf b = memory.alloc.directBuffer(u.length).writeBytes(u);
            ch.writeAndFlush(b).addListener(f -> {
                if (!f.isSuccess()) {
                    tail.exceptions.add(f.cause());
                }
            });
        }
        byte[] out = drainOutbound(ch);
        ch.finishAndReleaseAll();
        releaseQueued(ch);
        memory.assertAllReleased("encoding " + ulpdus.size() + " ULPDUs");
        if (!tail.exceptions.isEmpty()) {
            throw new AssertionError("FpduEncoder failed a write: " + tail.exceptions.get(0), tail.exceptions.get(0));
        }
        return out;
    }
}
