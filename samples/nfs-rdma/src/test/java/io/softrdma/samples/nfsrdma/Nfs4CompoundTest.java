package io.softrdma.samples.nfsrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.rpc.RpcAuth;
import io.softrdma.rpc.RpcCallHeader;
import io.softrdma.rpc.RpcRdmaHeader;
import io.softrdma.rpc.WriteChunk;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The COMPOUND encoder against the calls Linux svcrdma answered (../shared/interop/nfs-rdma/captures). */
class Nfs4CompoundTest {
    private static final List<String> DATA_BIN = List.of("data.bin");

    /** The credential as the sample's options make it, with the probe's machine name and stamp. */
    private static RpcAuth probeCredential() {
        return NfsRdmaOptions.parse("--read", "/data.bin", "--machine", Captures.MACHINE).credential(Captures.STAMP);
    }

    /** The RPC call as RpcRdmaConnection sends it: its call header, then the COMPOUND arguments. */
    private static byte[] call(int xid, byte[] stateid, long offset, int count) {
        ByteBuf out = Unpooled.buffer();
        try {
            RpcCallHeader.of(xid, Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, probeCredential()).encode(out);
            Nfs4Compound.encodeRead(out, DATA_BIN, stateid, offset, count);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    @Test
    void readCallIsTheCapturedOneByteForByte() {
        byte[] call = call(Captures.XID, Nfs4.readBypassStateid(), 0, 65536);
        assertThat(call).hasSize(136);
        assertThat(call).isEqualTo(Captures.bytes(Captures.CALL_READ_64K));
    }

    @Test
    void wholeSendPayloadWithTheWriteChunkIsTheCapturedOne() {
        // The 188-octet payload of the call's RDMA Send: RPC-over-RDMA header (one Write chunk), then the RPC call.
        ByteBuf out = Unpooled.buffer();
        try {
            RpcRdmaHeader.message(Captures.XID, 32, List.of(),
                    List.of(WriteChunk.of(Captures.STAG, 65536, Captures.TO)), null).encode(out);
            out.writeBytes(call(Captures.XID, Nfs4.readBypassStateid(), 0, 65536));
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(Captures.bytes(Captures.CALL_RDMA_HEADER_64K
                    + Captures.CALL_READ_64K));
        } finally {
            out.release();
        }
    }

    @Test
    void readAtTheEndOfTheFileIsTheCapturedOne() {
        assertThat(call(Captures.XID, Nfs4.readBypassStateid(), 1047575, 65536))
                .isEqualTo(Captures.bytes(Captures.CALL_READ_EOF));
    }

    @Test
    void zeroStateidIsTheCapturedOne() {
        assertThat(call(Captures.XID + 1, NfsRdmaOptions.Stateid.ZERO.bytes(), 65536, 65536))
                .isEqualTo(Captures.bytes(Captures.CALL_READ_ZERO_STATEID_2));
    }

    @Test
    void theArgumentsAloneStartAtTheTag() {
        ByteBuf out = Unpooled.buffer();
        try {
            Nfs4Compound.encodeRead(out, DATA_BIN, Nfs4.readBypassStateid(), 0, 65536);
            byte[] call = Captures.bytes(Captures.CALL_READ_64K);
            int header = 24 + probeCredential().encodedLength() + RpcAuth.none().encodedLength();
            assertThat(header).isEqualTo(68);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(java.util.Arrays.copyOfRange(call, header, call.length));
        } finally {
            out.release();
        }
    }

    @Test
    void nestedPathLooksUpEachComponentAndPadsNames() {
        ByteBuf out = Unpooled.buffer();
        try {
            Nfs4Compound.encodeRead(out, Nfs4Compound.pathComponents("/a/bcdef/"), Nfs4.anonymousStateid(),
                    0x0102030405060708L, 7);
            assertThat(ByteBufUtil.hexDump(out)).isEqualTo(""
                    + "00000000" + "00000000" + "00000005" // tag "", minorversion 0, 5 ops
                    + "00000018" // PUTROOTFH
                    + "0000000f" + "00000001" + "61000000" // LOOKUP "a", 3 octets of padding
                    + "0000000f" + "00000005" + "6263646566000000" // LOOKUP "bcdef"
                    + "0000000a" // GETFH
                    + "00000019" + "00".repeat(16) + "0102030405060708" + "00000007"); // READ
        } finally {
            out.release();
        }
    }

    @Test
    void getattrAsksForTypeAndSize() {
        ByteBuf out = Unpooled.buffer();
        try {
            Nfs4Compound.encodeGetattr(out, DATA_BIN);
            assertThat(ByteBufUtil.hexDump(out)).isEqualTo("00000000" + "00000000" + "00000004" + "00000018"
                    + "0000000f" + "00000008" + "646174612e62696e" + "0000000a"
                    + "00000009" + "00000001" + "00000012"); // GETATTR, bitmap4 of one word: bits 1 (type), 4 (size)
        } finally {
            out.release();
        }
    }

    @Test
    void pathComponents() {
        assertThat(Nfs4Compound.pathComponents("/data.bin")).containsExactly("data.bin");
        assertThat(Nfs4Compound.pathComponents("data.bin")).containsExactly("data.bin");
        assertThat(Nfs4Compound.pathComponents("//a///b/")).containsExactly("a", "b");
        assertThat(Nfs4Compound.pathComponents("/")).isEmpty();
        assertThatThrownBy(() -> Nfs4Compound.pathComponents("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> Nfs4Compound.pathComponents("/a/../b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'..'");
        assertThatThrownBy(() -> Nfs4Compound.pathComponents("/" + "x".repeat(256)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("255");
    }

    @Test
    void badStateidOrOffsetIsRefused() {
        ByteBuf out = Unpooled.buffer();
        try {
            assertThatThrownBy(() -> Nfs4Compound.encodeRead(out, DATA_BIN, new byte[12], 0, 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 octets");
            assertThatThrownBy(() -> Nfs4Compound.encodeRead(out, DATA_BIN, new byte[16], -1, 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        } finally {
            out.release();
        }
    }
}
