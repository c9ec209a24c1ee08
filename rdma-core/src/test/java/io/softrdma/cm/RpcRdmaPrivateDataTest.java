package io.softrdma.cm;

import static io.softrdma.testing.Hex.bytes;
import static io.softrdma.testing.Hex.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RpcRdmaPrivateDataTest {

    /** Linux's NFS server (svcrdma) answering a connection: version 1, R=0, send 4096, receive 4096. */
    private static final String NFS_SERVER_CAPTURE = "f6ab0e18" + "01" + "00" + "03" + "03";

    @Test
    void rfc8797Section4EncodesEveryFieldAtItsOffset() {
        assertThat(hex(RpcRdmaPrivateData.of(true, 8192, 262144).encode()))
                .isEqualTo("f6ab0e18" + "01" + "01" + "07" + "ff");
        assertThat(RpcRdmaPrivateData.LENGTH).isEqualTo(8);
        assertThat(RpcRdmaPrivateData.FORMAT_IDENTIFIER).isEqualTo(0xf6ab0e18);
    }

    @Test
    void rfc8797Section4DecodesEveryField() {
        RpcRdmaPrivateData d = RpcRdmaPrivateData.decode(bytes("f6ab0e18" + "01" + "01" + "07" + "ff"), 0);
        assertThat(d.version()).isEqualTo(1);
        assertThat(d.remoteInvalidation()).isTrue();
        assertThat(d.sendSize()).isEqualTo(8192);
        assertThat(d.receiveSize()).isEqualTo(262144);
    }

    @ParameterizedTest(name = "{0} octets encode as {1}")
    @CsvSource({"1024, 00", "2048, 01", "4096, 03", "65536, 3f", "262144, ff"})
    void rfc8797Section4_2SizesEncodeAsKiloOctetsMinusOneInTheirOwnField(int octets, String encoded) {
        assertThat(hex(RpcRdmaPrivateData.of(false, octets, 1024).encode())).isEqualTo("f6ab0e18" + "0100" + encoded
                + "00");
        assertThat(hex(RpcRdmaPrivateData.of(false, 1024, octets).encode())).isEqualTo("f6ab0e18" + "0100" + "00"
                + encoded);
    }

    @Test
    void rfc8797Section4_2EveryEncodedSizeDecodesAndRoundTrips() {
        for (int v = 0; v <= 255; v++) {
            byte[] block = bytes("f6ab0e18" + "0100");
            block = Arrays.copyOf(block, 8);
            block[6] = (byte) v;
            block[7] = (byte) (255 - v);
            RpcRdmaPrivateData d = RpcRdmaPrivateData.decode(block, 0);
            assertThat(d.sendSize()).as("send %d", v).isEqualTo((v + 1) * 1024);
            assertThat(d.receiveSize()).as("receive %d", 255 - v).isEqualTo((256 - v) * 1024);
            assertThat(d.encode()).isEqualTo(block);
        }
    }

    @Test
    void rfc8797Section4_1RAloneIsTheLeastSignificantBitOfTheSixthOctet() {
        assertThat(hex(RpcRdmaPrivateData.of(true, 1024, 1024).encode())).isEqualTo("f6ab0e18" + "01" + "01" + "0000");
        assertThat(hex(RpcRdmaPrivateData.of(false, 1024, 1024).encode())).isEqualTo("f6ab0e18" + "01" + "00" + "0000");
        assertThat(RpcRdmaPrivateData.decode(bytes("f6ab0e18" + "01" + "01" + "0000"), 0))
                .isEqualTo(RpcRdmaPrivateData.of(true, 1024, 1024));
        assertThat(RpcRdmaPrivateData.decode(bytes("f6ab0e18" + "01" + "80" + "0000"), 0).remoteInvalidation())
                .as("the most significant bit is reserved, not R").isFalse();
    }

    @ParameterizedTest(name = "Reserved/R octet {0} gives R={1}")
    @CsvSource({"fe, false", "ff, true", "02, false", "81, true", "7e, false"})
    void rfc8797Section4ReservedBitsOnReceiveAreIgnored(String octet, boolean r) {
        RpcRdmaPrivateData d = RpcRdmaPrivateData.decode(bytes("f6ab0e18" + "01" + octet + "0303"), 0);
        assertThat(d).isEqualTo(RpcRdmaPrivateData.of(r, 4096, 4096));
        assertThat(hex(d.encode())).as("senders write the reserved bits as zero")
                .isEqualTo("f6ab0e18" + "01" + (r ? "01" : "00") + "0303");
    }

    @Test
    void rfc8797Section4LinuxNfsServerCaptureDecodes() {
        RpcRdmaPrivateData d = RpcRdmaPrivateData.decode(bytes(NFS_SERVER_CAPTURE), 0);
        assertThat(d).isEqualTo(new RpcRdmaPrivateData(1, false, 4096, 4096));
        assertThat(d.toString()).isEqualTo("RPC-over-RDMA v1 {R=0 send=4096 receive=4096}");
        assertThat(RpcRdmaPrivateData.find(bytes(NFS_SERVER_CAPTURE))).contains(d);
    }

    @Test
    void rfc8797Section4LinuxNfsServerCaptureEncodes() {
        assertThat(hex(RpcRdmaPrivateData.of(false, 4096, 4096).encode())).isEqualTo(NFS_SERVER_CAPTURE);
    }

    @Test
    void toStringShowsVersionRAndSizesInOctets() {
        assertThat(RpcRdmaPrivateData.of(true, 4096, 262144).toString())
                .isEqualTo("RPC-over-RDMA v1 {R=1 send=4096 receive=262144}");
    }

    @Test
    void encodeAtAnOffsetWritesOnlyItsEightOctets() {
        byte[] dst = new byte[11];
        Arrays.fill(dst, (byte) 0xee);
        RpcRdmaPrivateData.of(true, 2048, 3072).encode(dst, 2);
        assertThat(hex(dst)).isEqualTo("eeee" + "f6ab0e18" + "01" + "01" + "01" + "02" + "ee");
    }

    @Test
    void encodeRefusesADestinationTooSmall() {
        RpcRdmaPrivateData d = RpcRdmaPrivateData.defaults();
        assertThatThrownBy(() -> d.encode(new byte[10], 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> d.encode(new byte[7], 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> d.encode(new byte[10], -1)).isInstanceOf(IndexOutOfBoundsException.class);
        byte[] exact = new byte[10];
        d.encode(exact, 2);
        assertThat(hex(exact)).isEqualTo("0000" + "f6ab0e18" + "01000000");
    }

    @Test
    void decodeReadsExactlyOneBlockAtTheOffset() {
        byte[] src = bytes("aabbcc" + NFS_SERVER_CAPTURE + "dd");
        assertThat(RpcRdmaPrivateData.decode(src, 3)).isEqualTo(RpcRdmaPrivateData.of(false, 4096, 4096));
    }

    @Test
    void rfc8797Section4DecodeRefusesAWrongFormatIdentifier() {
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(bytes("aa" + "f6ab0e19" + "01000303"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not RPC-over-RDMA CM private data: the Format Identifier at offset 1 is 0xf6ab0e19,"
                        + " expected 0xf6ab0e18 (RFC 8797 §4)");
    }

    @ParameterizedTest(name = "version {0}")
    @ValueSource(strings = {"00", "02", "ff"})
    void rfc8797Section5_2DecodeRefusesAnUnrecognizedVersion(String version) {
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(bytes("f6ab0e18" + version + "000303"), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RPC-over-RDMA CM private data version " + Integer.parseInt(version, 16)
                        + " at offset 4 is not recognized; only 1 is (RFC 8797 §4, §5.2)");
    }

    @Test
    void rfc8797Section5_2DecodeRefusesATruncatedBlock() {
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(bytes("00" + "f6ab0e18" + "010003"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RPC-over-RDMA CM private data truncated: 7 octets from offset 1, a version 1 block"
                        + " needs 8 (RFC 8797 §4, §5.2)");
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(bytes("f6ab0e"), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated: 3 octets");
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(new byte[0], 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated: 0 octets");
    }

    @Test
    void decodeRefusesAnOffsetOutsideTheArray() {
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(bytes(NFS_SERVER_CAPTURE), 9))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RpcRdmaPrivateData.decode(bytes(NFS_SERVER_CAPTURE), -1))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @ParameterizedTest(name = "after {0} octets of other private data")
    @ValueSource(ints = {0, 1, 3, 5, 7})
    void rfc8797Section5_2FindsTheIdentifierAtAnyOffsetInsideOtherPrivateData(int offset) {
        byte[] before = new byte[offset];
        for (int i = 0; i < offset; i++) {
            before[i] = (byte) (0x11 * (i + 1));
        }
        byte[] pd = bytes(hex(before) + "f6ab0e18" + "01" + "01" + "0f" + "1f" + "a0b0c0");
        assertThat(RpcRdmaPrivateData.find(pd)).contains(RpcRdmaPrivateData.of(true, 16384, 32768));
        assertThat(RpcRdmaPrivateData.findOrDefaults(pd)).isEqualTo(RpcRdmaPrivateData.of(true, 16384, 32768));
    }

    @Test
    void rfc8797Section5_2FindsTheBlockBehindAnMpaRevision2IrdOrdBlock() {
        byte[] pd = bytes("8010" + "4010" + NFS_SERVER_CAPTURE);
        assertThat(RpcRdmaPrivateData.find(pd)).contains(RpcRdmaPrivateData.of(false, 4096, 4096));
    }

    @Test
    void rfc8797Section5_2FindsTheBlockAtTheVeryEndOfThePrivateData() {
        assertThat(RpcRdmaPrivateData.find(bytes("0102030405" + "f6ab0e18" + "01" + "01" + "0001")))
                .contains(RpcRdmaPrivateData.of(true, 1024, 2048));
    }

    @Test
    void rfc8797Section5_2AnIdentifierWithABadVersionIsSkippedForAValidBlockLater() {
        byte[] pd = bytes("f6ab0e18" + "02" + "01" + "ffff" + "00" + "f6ab0e18" + "01" + "00" + "07" + "01");
        assertThat(RpcRdmaPrivateData.find(pd)).contains(RpcRdmaPrivateData.of(false, 8192, 2048));
    }

    @Test
    void rfc8797Section5_2ACandidateOverlappingTheNextIsSkipped() {
        // At offset 0 the "Version" octet is 0xf6, the start of the real block at offset 4.
        byte[] pd = bytes("f6ab0e18" + "f6ab0e18" + "01" + "01" + "03" + "07");
        assertThat(RpcRdmaPrivateData.find(pd)).contains(RpcRdmaPrivateData.of(true, 4096, 8192));
    }

    @ParameterizedTest(name = "version {0}")
    @ValueSource(strings = {"00", "02", "ff"})
    void rfc8797Section5_2ABadVersionAloneIsAbsent(String version) {
        byte[] pd = bytes("f6ab0e18" + version + "010303");
        assertThat(RpcRdmaPrivateData.find(pd)).isEmpty();
        assertThat(RpcRdmaPrivateData.findOrDefaults(pd)).isSameAs(RpcRdmaPrivateData.defaults());
    }

    @Test
    void rfc8797Section6AFutureVersionCanBeWrittenButIsNotRecognized() {
        byte[] v2 = new RpcRdmaPrivateData(2, true, 4096, 4096).encode();
        assertThat(hex(v2)).isEqualTo("f6ab0e18" + "02" + "01" + "0303");
        assertThat(RpcRdmaPrivateData.find(v2)).isEmpty();
    }

    @ParameterizedTest(name = "{0} of the 8 octets present")
    @ValueSource(ints = {4, 5, 6, 7})
    void rfc8797Section5_2ABlockOverrunningTheBufferIsAbsent(int present) {
        byte[] pd = bytes("0102" + NFS_SERVER_CAPTURE.substring(0, present * 2));
        assertThat(pd).hasSize(2 + present);
        assertThat(RpcRdmaPrivateData.find(pd)).isEmpty();
        assertThat(RpcRdmaPrivateData.findOrDefaults(pd)).isEqualTo(RpcRdmaPrivateData.defaults());
    }

    @Test
    void rfc8797Section5_2AValidBlockBeforeATruncatedOneIsFound() {
        byte[] pd = bytes(NFS_SERVER_CAPTURE + "f6ab0e18" + "01");
        assertThat(RpcRdmaPrivateData.find(pd)).contains(RpcRdmaPrivateData.of(false, 4096, 4096));
    }

    @Test
    void rfc8797Section5_2EmptyAndNullPrivateDataHoldNoBlock() {
        assertThat(RpcRdmaPrivateData.find(new byte[0])).isEmpty();
        assertThat(RpcRdmaPrivateData.find(null)).isEmpty();
        assertThat(RpcRdmaPrivateData.findOrDefaults(new byte[0])).isEqualTo(RpcRdmaPrivateData.defaults());
        assertThat(RpcRdmaPrivateData.findOrDefaults(null)).isEqualTo(RpcRdmaPrivateData.defaults());
    }

    @Test
    void rfc8797Section5_2PrivateDataWithoutTheIdentifierHoldsNoBlock() {
        assertThat(RpcRdmaPrivateData.find(new byte[512])).as("512 zero octets").isEmpty();
        assertThat(RpcRdmaPrivateData.find(bytes("f6ab0e17" + "01000303"))).as("last identifier octet off by one")
                .isEmpty();
        assertThat(RpcRdmaPrivateData.find(bytes("18" + "0eabf6" + "01000303" + "00"))).as("little-endian")
                .isEmpty();
        assertThat(RpcRdmaPrivateData.find(bytes("f6ab0e" + "01000303" + "0000"))).as("three identifier octets")
                .isEmpty();
    }

    @Test
    void rfc8797Section5_1DefaultsAreVersion1RClearAndBothSizesEncodedZero() {
        RpcRdmaPrivateData d = RpcRdmaPrivateData.defaults();
        assertThat(d.version()).isEqualTo(1);
        assertThat(d.remoteInvalidation()).isFalse();
        assertThat(d.sendSize()).isEqualTo(1024);
        assertThat(d.receiveSize()).isEqualTo(1024);
        assertThat(hex(d.encode())).isEqualTo("f6ab0e18" + "01" + "00" + "00" + "00");
        assertThat(d).isEqualTo(RpcRdmaPrivateData.of(false, RpcRdmaPrivateData.MIN_SIZE, RpcRdmaPrivateData.MIN_SIZE));
    }

    @ParameterizedTest(name = "{0} octets")
    @CsvSource({
        "0, 'sendSize 0 is below the minimum inline threshold of 1024 octets; use at least 1024"
                + " (RFC 8797 §4.2, RFC 8166 §3.3.3)'",
        "-1024, 'sendSize -1024 is below the minimum inline threshold of 1024 octets; use at least 1024"
                + " (RFC 8797 §4.2, RFC 8166 §3.3.3)'",
        "1023, 'sendSize 1023 is below the minimum inline threshold of 1024 octets; use at least 1024"
                + " (RFC 8797 §4.2, RFC 8166 §3.3.3)'",
        "1025, 'sendSize 1025 is not a multiple of 1024 octets, so a Size field cannot carry it; round it down to"
                + " 1024 (RFC 8797 §4.2)'",
        "5000, 'sendSize 5000 is not a multiple of 1024 octets, so a Size field cannot carry it; round it down to"
                + " 4096 (RFC 8797 §4.2)'",
        "262145, 'sendSize 262145 is above the largest size a Size field can carry, 262144 octets; use at most"
                + " 262144 (RFC 8797 §4.2)'",
        "263168, 'sendSize 263168 is above the largest size a Size field can carry, 262144 octets; use at most"
                + " 262144 (RFC 8797 §4.2)'"})
    void rfc8797Section4_2SizesOutsideTheEncodableRangeAreRefused(int octets, String message) {
        assertThatThrownBy(() -> RpcRdmaPrivateData.of(false, octets, 4096))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        assertThatThrownBy(() -> RpcRdmaPrivateData.of(false, 4096, octets))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message.replace("sendSize", "receiveSize"));
    }

    @ParameterizedTest(name = "version {0}")
    @ValueSource(ints = {0, -1, 256})
    void rfc8797Section4VersionsOutsideTheEightBitFieldOrZeroAreRefused(int version) {
        assertThatThrownBy(() -> new RpcRdmaPrivateData(version, false, 1024, 1024))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("version " + version + " is not a valid RPC-over-RDMA CM private data version: the"
                        + " Version field is 8 bits and versions start at 1; use VERSION_1 (RFC 8797 §4)");
    }

    @Test
    void theBoundsOfEveryFieldAreAccepted() {
        assertThat(new RpcRdmaPrivateData(255, false, 1024, 262144).version()).isEqualTo(255);
        assertThat(RpcRdmaPrivateData.of(true, 262144, 1024).encode()).isEqualTo(bytes("f6ab0e18" + "0101ff00"));
    }

    @Test
    void appendToPutsTheBlockAfterTheApplicationsOctets() {
        byte[] app = bytes("0a0b0c");
        byte[] pd = RpcRdmaPrivateData.of(true, 4096, 8192).appendTo(app);
        assertThat(hex(pd)).isEqualTo("0a0b0c" + "f6ab0e18" + "01" + "01" + "03" + "07");
        assertThat(hex(app)).as("argument untouched").isEqualTo("0a0b0c");
        assertThat(RpcRdmaPrivateData.find(pd)).contains(RpcRdmaPrivateData.of(true, 4096, 8192));
        assertThat(RpcRdmaPrivateData.defaults().appendTo(new byte[0])).isEqualTo(RpcRdmaPrivateData.defaults()
                .encode());
    }

    @Test
    void appendToAcceptsApplicationOctetsHoldingOnlyAnInvalidCandidate() {
        byte[] app = bytes("f6ab0e18" + "02" + "000000");
        assertThat(RpcRdmaPrivateData.of(false, 4096, 4096).appendTo(app))
                .isEqualTo(bytes("f6ab0e18" + "02" + "000000" + NFS_SERVER_CAPTURE));
    }

    @Test
    void rfc8797Section5_2AppendToRefusesABlockAReceiverWouldNotFindFirst() {
        RpcRdmaPrivateData d = RpcRdmaPrivateData.of(true, 4096, 4096);
        assertThatThrownBy(() -> d.appendTo(bytes("aa" + NFS_SERVER_CAPTURE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the private data already holds a valid RPC-over-RDMA CM private data block at offset 1"
                        + " (RPC-over-RDMA v1 {R=0 send=4096 receive=4096}), which a receiver would find before the"
                        + " appended one (RFC 8797 §5.2); remove it or send this block alone");
        // An identifier and a version 1 octet at the end borrow the appended block's first three octets.
        assertThatThrownBy(() -> d.appendTo(bytes("f6ab0e18" + "01")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at offset 0 (RPC-over-RDMA v1 {R=0 send=176128 receive=15360})");
    }

    @Test
    void recordsAreValuesAndFindReturnsEqualOnes() {
        Optional<RpcRdmaPrivateData> a = RpcRdmaPrivateData.find(bytes(NFS_SERVER_CAPTURE));
        Optional<RpcRdmaPrivateData> b = RpcRdmaPrivateData.find(bytes("00" + NFS_SERVER_CAPTURE));
        assertThat(a).isEqualTo(b);
        assertThat(a.orElseThrow().hashCode()).isEqualTo(RpcRdmaPrivateData.of(false, 4096, 4096).hashCode());
    }
}
