package io.softrdma.fuzz;

import static io.softrdma.fuzz.FuzzSupport.expectOnly;
import static io.softrdma.fuzz.FuzzSupport.hex;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.ddp.DdpError;
import io.softrdma.fuzz.FuzzSupport.Input;
import io.softrdma.internal.ddp.DdpControl;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.internal.rdmap.ReadRequestCodec;
import io.softrdma.internal.rdmap.TerminateCause;
import io.softrdma.internal.rdmap.TerminateCodec;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.rdmap.RdmapError;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.ReceivedTerminate;
import io.softrdma.rdmap.TerminateCode;
import java.util.Arrays;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The DDP and RDMAP header codecs: the tagged and untagged DDP headers (RFC 5041 §4.2-§4.4), the RDMAP
 * control field and opcodes (RFC 5040 §4.1, §4.2), the RDMA Read Request header (§4.4) and the Terminate
 * header (§4.8, in the RFC's layout and in Linux siw's), with the error tables of RFC 5040 §7 and RFC 5041
 * §7.2. Readers take absolute offsets: the harness gives them a buffer that ends where the header ends (so a
 * read past it throws) and, for the Terminate, also one with other octets around it, which may not change
 * the result.
 */
@ExtendWith(ClassLeakCheck.class)
class HeaderCodecsFuzzTest {

    /** A buffer of exactly {@code lead} filler octets, then {@code body}, then {@code trail} filler octets. */
    static ByteBuf framed(byte[] body, int lead, int trail, int filler) {
        byte[] all = new byte[lead + body.length + trail];
        Arrays.fill(all, (byte) filler);
        System.arraycopy(body, 0, all, lead, body.length);
        return Unpooled.wrappedBuffer(all);
    }

    /**
     * {@code TerminateCodec.decode} and {@code describe} on an arbitrary Terminate header. Input: the
     * options octet (bits 0-3 octets before the header, bits 4-7 octets after it), then the header.
     */
    @FuzzTest(maxDuration = "30s")
    void terminate(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int options = in.u8();
        int lead = options & 0x0F;
        int trail = options >>> 4;
        byte[] header = in.rest();
        ByteBuf exact = Unpooled.wrappedBuffer(header);
        ByteBuf around = framed(header, lead, trail, 0xE7);
        ByteBuf aroundOther = framed(header, lead, trail, 0x18);

        ReceivedTerminate t;
        try {
            t = TerminateCodec.decode(exact, 0, header.length);
        } catch (IllegalArgumentException e) {
            if (header.length >= TerminateCodec.CONTROL_LENGTH) {
                throw new AssertionError("rejected a " + header.length + "-octet Terminate header", e);
            }
            return; // documented: a Terminate header has at least 4 octets
        }
        if (header.length < TerminateCodec.CONTROL_LENGTH) {
            throw new AssertionError("decoded a " + header.length + "-octet Terminate header: " + t);
        }
        ReceivedTerminate t2 = TerminateCodec.decode(around, lead, header.length);
        ReceivedTerminate t3 = TerminateCodec.decode(aroundOther, lead, header.length);
        if (!t.equals(t2) || !t.equals(t3)) {
            throw new AssertionError("the octets around the header changed its decoding: " + t + " / " + t2 + " / "
                    + t3);
        }
        if (!TerminateCodec.describe(around, lead, header.length).equals(t.toString())) {
            throw new AssertionError("describe differs from decode");
        }
        int consumed = TerminateCodec.CONTROL_LENGTH + (t.segmentLength() >= 0 ? 2 : 0) + t.ddpHeader().length
                + t.rdmaHeader().length;
        if (consumed > header.length || t.segmentLength() < -1 || t.segmentLength() > 0xFFFF
                || t.ddpHeader().length > UntaggedHeaderCodec.LENGTH
                || t.rdmaHeader().length > ReadRequestCodec.LENGTH
                || (t.ddpHeader().length > 0 && !t.d()) || (t.rdmaHeader().length > 0 && !t.r())
                || (t.segmentLength() >= 0 && !(t.m() || t.d()))) {
            throw new AssertionError("inconsistent " + t + " from " + hex(header));
        }
        if ((t.m() || t.d()) && header.length >= 6 && t.segmentLength() < 0) {
            throw new AssertionError("M or D without the segment length: " + t + " from " + hex(header));
        }
        t.code().name();
        t.otherReading().name();
        t.ambiguous();
        t.hashCode();
        exact.release();
        around.release();
        aroundOther.release();
    }

    /**
     * Writes a Terminate header (RFC layout, Layer 0 to 2) from fuzzer-chosen fields and decodes it back:
     * it must come back unchanged. Input: Layer (mod 3), EType, Error Code, then a DDP header (its first
     * octet's T bit decides 14 or 18 octets, or none if too short), the segment length (16 bits) and,
     * when 28 more octets follow, a Read Request header.
     */
    @FuzzTest(maxDuration = "30s")
    void terminateRoundTrip(byte[] data) {
        Input in = new Input(data);
        TerminateCode code = new TerminateCode(in.u8() % 3, in.u8() & 0x0F, in.u8());
        int first = in.remaining() > 0 ? data[data.length - in.remaining()] & 0xFF : 0;
        byte[] ddp = in.take((first & 0x80) != 0 ? TaggedHeaderCodec.LENGTH : UntaggedHeaderCodec.LENGTH);
        if (ddp.length != TaggedHeaderCodec.LENGTH && ddp.length != UntaggedHeaderCodec.LENGTH) {
            ddp = new byte[0];
        }
        int segmentLength = ddp.length > 0 ? in.u16() : 0;
        byte[] rdma = in.remaining() >= ReadRequestCodec.LENGTH ? in.take(ReadRequestCodec.LENGTH) : new byte[0];
        TerminateCause cause = new TerminateCause(code, segmentLength, ddp, rdma, "fuzz");
        ByteBuf out = Unpooled.buffer();
        TerminateCodec.write(out, cause);
        if (out.readableBytes() != TerminateCodec.length(cause)) {
            throw new AssertionError("length() " + TerminateCodec.length(cause) + " but write() wrote "
                    + out.readableBytes());
        }
        ReceivedTerminate t = TerminateCodec.decode(out, 0, out.readableBytes());
        if (t.siwLayout() || !t.code().equals(code) || t.m() != cause.hasSegmentLength() || t.d() != cause.hasDdpHeader()
                || t.r() != cause.hasRdmaHeader() || t.segmentLength() != (ddp.length > 0 ? segmentLength : -1)
                || !Arrays.equals(t.ddpHeader(), ddp) || !Arrays.equals(t.rdmaHeader(), rdma)) {
            throw new AssertionError("Terminate " + cause + " written as " + ByteBufUtil.hexDump(out)
                    + " decodes as " + t);
        }
        cause.toString();
    }

    /**
     * The DDP and RDMAP readers on an arbitrary ULPDU. Input: the options octet (bits 0-2 octets before the
     * ULPDU), then the ULPDU. Each reader runs only when its header fits (their documented precondition);
     * each header must write back to the same octets (except the bits the writers always set).
     */
    @FuzzTest(maxDuration = "30s")
    void ddpAndRdmapHeaders(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int lead = in.u8() & 7;
        byte[] ulpdu = in.rest();
        ByteBuf buf = framed(ulpdu, lead, 0, 0xC3);
        int n = ulpdu.length;

        if (n >= 2) {
            int ddp = buf.getUnsignedByte(lead);
            int rdmap = buf.getUnsignedByte(lead + 1);
            RdmapOpcode op = RdmapOpcode.fromCode(DdpControl.opcode(rdmap));
            if (DdpControl.ddpVersion(ddp) > 3 || DdpControl.rdmapVersion(rdmap) > 3) {
                throw new AssertionError("a 2-bit version above 3");
            }
            if (op != null) {
                op.tagged();
                op.queueNumber();
                op.headerLength();
                op.isSendType();
                op.invalidates();
                op.solicited();
                if (op.code() != DdpControl.opcode(rdmap)) {
                    throw new AssertionError(op + " has code " + op.code());
                }
            } else if (DdpControl.opcode(rdmap) < 12) {
                throw new AssertionError("RFC 5040 or RFC 7306 defines opcode " + DdpControl.opcode(rdmap));
            }
            // The error tables for arbitrary wire values.
            int etype = ddp & 0x0F;
            int ecode = rdmap;
            DdpError.of(etype, ecode);
            RdmapError.of(etype, ecode);
            try {
                LlpErrorCode l = LlpErrorCode.fromCode(ecode);
                if (l.code() != ecode) {
                    throw new AssertionError(l + " for code " + ecode);
                }
            } catch (IllegalArgumentException e) {
                if (ecode >= 1 && ecode <= 7) {
                    throw new AssertionError("LLP error code " + ecode + " is defined", e);
                }
            }
            new TerminateCode(ddp >>> 4, etype, ecode).toString();
        }
        if (n >= TaggedHeaderCodec.LENGTH) {
            TaggedHeaderCodec.describe(buf, lead);
            int stag = TaggedHeaderCodec.stag(buf, lead);
            long to = TaggedHeaderCodec.taggedOffset(buf, lead);
            int rdmap = buf.getUnsignedByte(lead + 1);
            ByteBuf out = Unpooled.buffer();
            TaggedHeaderCodec.write(out, DdpControl.opcode(rdmap), DdpControl.last(buf.getUnsignedByte(lead)), stag, to);
            byte[] written = ByteBufUtil.getBytes(out);
            if (written.length != TaggedHeaderCodec.LENGTH
                    || !Arrays.equals(Arrays.copyOfRange(written, 2, 14), Arrays.copyOfRange(ulpdu, 2, 14))
                    || DdpControl.opcode(written[1]) != DdpControl.opcode(rdmap)
                    || !DdpControl.tagged(written[0] & 0xFF)) {
                throw new AssertionError("tagged header " + hex(Arrays.copyOf(ulpdu, 14)) + " written back as "
                        + hex(written));
            }
        }
        if (n >= UntaggedHeaderCodec.LENGTH) {
            UntaggedHeaderCodec.describe(buf, lead);
            long qn = UntaggedHeaderCodec.queueNumber(buf, lead);
            long mo = UntaggedHeaderCodec.messageOffset(buf, lead);
            if (qn < 0 || qn > 0xFFFF_FFFFL || mo < 0 || mo > 0xFFFF_FFFFL) {
                throw new AssertionError("QN " + qn + " or MO " + mo + " outside 32 bits");
            }
            int rdmap = buf.getUnsignedByte(lead + 1);
            ByteBuf out = Unpooled.buffer();
            UntaggedHeaderCodec.write(out, DdpControl.opcode(rdmap), DdpControl.last(buf.getUnsignedByte(lead)),
                    UntaggedHeaderCodec.invalidateStag(buf, lead), (int) qn, UntaggedHeaderCodec.msn(buf, lead),
                    (int) mo);
            byte[] written = ByteBufUtil.getBytes(out);
            if (written.length != UntaggedHeaderCodec.LENGTH
                    || !Arrays.equals(Arrays.copyOfRange(written, 2, 18), Arrays.copyOfRange(ulpdu, 2, 18))
                    || DdpControl.tagged(written[0] & 0xFF)) {
                throw new AssertionError("untagged header " + hex(Arrays.copyOf(ulpdu, 18)) + " written back as "
                        + hex(written));
            }
        }
        if (n >= ReadRequestCodec.LENGTH) {
            ReadRequestCodec.describe(buf, lead);
        }
        if (n >= UntaggedHeaderCodec.LENGTH + ReadRequestCodec.LENGTH) {
            int h = lead + UntaggedHeaderCodec.LENGTH;
            ReadRequestCodec.describe(buf, h);
            long size = ReadRequestCodec.size(buf, h);
            if (size < 0 || size > 0xFFFF_FFFFL) {
                throw new AssertionError("RDMARDSZ " + size + " outside 32 bits");
            }
            ByteBuf out = Unpooled.buffer();
            ReadRequestCodec.write(out, ReadRequestCodec.sinkStag(buf, h), ReadRequestCodec.sinkTaggedOffset(buf, h),
                    (int) size, ReadRequestCodec.sourceStag(buf, h), ReadRequestCodec.sourceTaggedOffset(buf, h));
            byte[] written = ByteBufUtil.getBytes(out);
            byte[] original = Arrays.copyOfRange(ulpdu, UntaggedHeaderCodec.LENGTH,
                    UntaggedHeaderCodec.LENGTH + ReadRequestCodec.LENGTH);
            if (!Arrays.equals(written, original)) {
                throw new AssertionError("Read Request header " + hex(original) + " written back as " + hex(written));
            }
        }
        // The Terminate reader on whatever follows an untagged header, as the receive path calls it.
        if (n >= UntaggedHeaderCodec.LENGTH + TerminateCodec.CONTROL_LENGTH) {
            try {
                TerminateCodec.decode(buf, lead + UntaggedHeaderCodec.LENGTH, n - UntaggedHeaderCodec.LENGTH).toString();
            } catch (RuntimeException e) {
                expectOnly(e, "from TerminateCodec.decode");
            }
        }
        buf.release();
    }
}
