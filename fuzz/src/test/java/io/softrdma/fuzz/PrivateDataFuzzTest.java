package io.softrdma.fuzz;

import static io.softrdma.fuzz.FuzzSupport.hex;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.fuzz.FuzzSupport.Input;
import io.softrdma.internal.mpa.MpaStartupFrameCodec;
import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.MpaStartupFrame;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the MPA private data carries: RFC 6581 §5's IRD/ORD block of an enhanced frame, and RFC 8797's
 * RPC-over-RDMA CM private data (§4 format, §5.1 defaults, §5.2 search anywhere in the data), with the
 * negotiation of RFC 8797 §4.1 and §4.2 on top.
 */
@ExtendWith(ClassLeakCheck.class)
class PrivateDataFuzzTest {

    /**
     * {@code IrdOrdHeader.decode} on arbitrary private data, and the enhanced frame that carries it. Input:
     * the private data.
     */
    @FuzzTest(maxDuration = "30s")
    void irdOrd(byte[] privateData) {
        if (privateData.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        IrdOrdHeader block;
        try {
            block = IrdOrdHeader.decode(privateData);
        } catch (IllegalArgumentException e) {
            if (privateData.length >= IrdOrdHeader.LENGTH) {
                throw new AssertionError("rejected " + hex(privateData), e);
            }
            block = null; // documented: fewer than 4 octets
        }
        if (block != null) {
            byte[] again = block.prependTo(Arrays.copyOfRange(privateData, IrdOrdHeader.LENGTH, privateData.length));
            if (!Arrays.equals(again, privateData)) {
                throw new AssertionError(hex(privateData) + " decoded as " + block + ", written back as " + hex(again));
            }
            if (!IrdOrdHeader.of(block.ird(), block.ord()).equals(new IrdOrdHeader(false, false, block.ird(), false,
                    false, block.ord()))) {
                throw new AssertionError("IrdOrdHeader.of disagrees with the constructor for " + block);
            }
            block.toString();
        }
        // The enhanced frame (Rev 2, flag 0x10) whose private data this is.
        MpaStartupFrame frame;
        try {
            frame = MpaStartupFrame.of(MpaStartupFrame.Type.REQUEST, false, false, false,
                    MpaStartupFrameCodec.FLAG_ENHANCED, 2, privateData);
        } catch (IllegalArgumentException e) {
            if (privateData.length <= MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH) {
                throw new AssertionError("rejected an enhanced frame with " + privateData.length + " octets", e);
            }
            return; // documented: at most 512 octets of private data
        }
        if (!frame.enhanced()) {
            throw new AssertionError("Rev 2 with flag 0x10 is enhanced: " + frame);
        }
        try {
            IrdOrdHeader fromFrame = frame.irdOrd();
            if (!fromFrame.equals(block)) {
                throw new AssertionError(fromFrame + " from the frame, " + block + " from the octets");
            }
            if (!Arrays.equals(frame.applicationPrivateData(),
                    Arrays.copyOfRange(privateData, IrdOrdHeader.LENGTH, privateData.length))) {
                throw new AssertionError("application private data of " + frame);
            }
        } catch (IllegalStateException e) {
            if (block != null) {
                throw new AssertionError("no IRD/ORD block in " + frame, e);
            }
        }
    }

    /** The first offset where RFC 8797 §5.2 finds a valid block, by the RFC's rules, or -1. */
    static int firstBlock(byte[] pd) {
        for (int i = 0; i + RpcRdmaPrivateData.LENGTH <= pd.length; i++) {
            if ((pd[i] & 0xFF) == 0xf6 && (pd[i + 1] & 0xFF) == 0xab && (pd[i + 2] & 0xFF) == 0x0e
                    && (pd[i + 3] & 0xFF) == 0x18 && pd[i + 4] == 1) {
                return i;
            }
        }
        return -1;
    }

    /** The block at {@code i} by RFC 8797 §4: R is bit 0 of octet 5, sizes are (value + 1) * 1024. */
    static RpcRdmaPrivateData blockAt(byte[] pd, int i) {
        return new RpcRdmaPrivateData(1, (pd[i + 5] & 1) != 0, ((pd[i + 6] & 0xFF) + 1) * 1024,
                ((pd[i + 7] & 0xFF) + 1) * 1024);
    }

    /**
     * {@code RpcRdmaPrivateData.find}, {@code findOrDefaults}, {@code decode} and {@code appendTo}, and
     * {@code RpcRdmaParameters.negotiate}, on arbitrary private data. Input: the offset octet (where
     * {@code decode} looks, modulo the length + 1), the split octet (where the data splits into the local
     * and the peer's part, and the prefix for {@code appendTo}), then the private data.
     */
    @FuzzTest(maxDuration = "30s")
    void rpcRdma(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int offsetOption = in.u8();
        int splitOption = in.u8();
        byte[] pd = in.rest();

        int at = firstBlock(pd);
        Optional<RpcRdmaPrivateData> found = RpcRdmaPrivateData.find(pd);
        Optional<RpcRdmaPrivateData> expected = at < 0 ? Optional.empty() : Optional.of(blockAt(pd, at));
        if (!found.equals(expected)) {
            throw new AssertionError("find(" + hex(pd) + ") is " + found + ", RFC 8797 §5.2 gives " + expected);
        }
        if (!RpcRdmaPrivateData.findOrDefaults(pd).equals(expected.orElse(RpcRdmaPrivateData.defaults()))) {
            throw new AssertionError("findOrDefaults disagrees with find");
        }
        if (found.isPresent()) {
            byte[] encoded = found.get().encode();
            byte[] original = Arrays.copyOfRange(pd, at, at + RpcRdmaPrivateData.LENGTH);
            original[5] &= 1; // reserved bits: written as zero, ignored on receipt (RFC 8797 §4)
            if (!Arrays.equals(encoded, original)) {
                throw new AssertionError(found.get() + " encodes as " + hex(encoded) + ", received " + hex(original));
            }
            if (!found.get().equals(RpcRdmaPrivateData.decode(pd, at))) {
                throw new AssertionError("decode at " + at + " disagrees with find");
            }
        }

        int offset = offsetOption % (pd.length + 1);
        try {
            RpcRdmaPrivateData d = RpcRdmaPrivateData.decode(pd, offset);
            if (firstBlock(Arrays.copyOfRange(pd, offset, pd.length)) != 0 || !d.equals(blockAt(pd, offset))) {
                throw new AssertionError("decode(" + hex(pd) + ", " + offset + ") accepted " + d);
            }
        } catch (IllegalArgumentException e) {
            if (firstBlock(Arrays.copyOfRange(pd, offset, pd.length)) == 0) {
                throw new AssertionError("decode rejected the valid block at " + offset + " of " + hex(pd), e);
            }
        }

        int split = splitOption % (pd.length + 1);
        byte[] local = Arrays.copyOfRange(pd, 0, split);
        byte[] peer = Arrays.copyOfRange(pd, split, pd.length);
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(local, peer);
        if (p.peerAdvertised() != (firstBlock(peer) >= 0)) {
            throw new AssertionError("peerAdvertised " + p.peerAdvertised() + " for " + hex(peer));
        }
        RpcRdmaParameters.negotiate(null, null);

        RpcRdmaPrivateData block = expected.orElse(RpcRdmaPrivateData.defaults());
        try {
            byte[] appended = block.appendTo(local);
            if (appended.length != local.length + RpcRdmaPrivateData.LENGTH
                    || firstBlock(appended) != local.length || !RpcRdmaPrivateData.find(appended).get().equals(block)) {
                throw new AssertionError(block + " appended to " + hex(local) + " gives " + hex(appended));
            }
        } catch (IllegalArgumentException e) {
            byte[] probe = Arrays.copyOf(local, local.length + RpcRdmaPrivateData.LENGTH);
            block.encode(probe, local.length);
            if (firstBlock(probe) == local.length) {
                throw new AssertionError("appendTo refused " + hex(local) + " although no block comes first", e);
            }
        }
        block.toString();
    }
}
