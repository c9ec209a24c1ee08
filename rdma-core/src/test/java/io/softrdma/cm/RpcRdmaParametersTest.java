package io.softrdma.cm;

import static io.softrdma.testing.Hex.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RpcRdmaParametersTest {

    /** Linux's NFS server (svcrdma) answering a connection: version 1, R=0, send 4096, receive 4096. */
    private static final byte[] NFS_SERVER_CAPTURE = bytes("f6ab0e18" + "01" + "00" + "03" + "03");

    private static byte[] block(boolean r, int send, int receive) {
        return RpcRdmaPrivateData.of(r, send, receive).encode();
    }

    @Test
    void rfc8797Section4_2SendIsLimitedByThePeersReceiveAndReceiveByOurOwn() {
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(block(true, 8192, 4096), block(true, 16384, 2048));
        assertThat(p.sendInlineThreshold()).isEqualTo(2048);
        assertThat(p.receiveInlineThreshold()).isEqualTo(4096);
        assertThat(p.remoteInvalidation()).isTrue();
        assertThat(p.peerAdvertised()).isTrue();
        assertThat(p.local()).isEqualTo(RpcRdmaPrivateData.of(true, 8192, 4096));
        assertThat(p.peer()).isEqualTo(RpcRdmaPrivateData.of(true, 16384, 2048));
    }

    @Test
    void rfc8797Section4_2SendIsLimitedByOurOwnSendAndReceiveByThePeersSend() {
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(block(false, 2048, 65536), block(false, 4096, 32768));
        assertThat(p.sendInlineThreshold()).isEqualTo(2048);
        assertThat(p.receiveInlineThreshold()).isEqualTo(4096);
        assertThat(p.remoteInvalidation()).isFalse();
    }

    @Test
    void rfc8797Section4_2EachSidesSendThresholdIsTheOthersReceiveThreshold() {
        byte[] client = block(true, 262144, 8192);
        byte[] server = block(true, 16384, 131072);
        RpcRdmaParameters atClient = RpcRdmaParameters.negotiate(client, server);
        RpcRdmaParameters atServer = RpcRdmaParameters.negotiate(server, client);
        assertThat(atClient.sendInlineThreshold()).isEqualTo(131072).isEqualTo(atServer.receiveInlineThreshold());
        assertThat(atClient.receiveInlineThreshold()).isEqualTo(8192).isEqualTo(atServer.sendInlineThreshold());
    }

    @ParameterizedTest(name = "local R={0} peer R={1} -> {2}")
    @CsvSource({"false, false, false", "true, false, false", "false, true, false", "true, true, true"})
    void rfc8797Section4_1RemoteInvalidationOnlyWhenBothSetR(boolean localR, boolean peerR, boolean expected) {
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(block(localR, 4096, 4096), block(peerR, 4096, 4096));
        assertThat(p.remoteInvalidation()).isEqualTo(expected);
        assertThat(p.local().remoteInvalidation()).isEqualTo(localR);
        assertThat(p.peer().remoteInvalidation()).isEqualTo(peerR);
    }

    @Test
    void aLinuxClientTalkingToTheCapturedNfsServer() {
        // A client offering R and 4 KiB each way; the server clears R, so no Send with Invalidate.
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(block(true, 4096, 4096), NFS_SERVER_CAPTURE);
        assertThat(p).isEqualTo(new RpcRdmaParameters(4096, 4096, false, true, RpcRdmaPrivateData.of(true, 4096,
                4096), RpcRdmaPrivateData.of(false, 4096, 4096)));
    }

    @Test
    void rfc8797Section5_2ThePeersBlockIsFoundBehindOtherPrivateData() {
        byte[] peer = bytes("8010" + "4010" + "f6ab0e18" + "01" + "01" + "0f" + "07");
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(block(true, 32768, 32768), peer);
        assertThat(p.peerAdvertised()).isTrue();
        assertThat(p.sendInlineThreshold()).isEqualTo(8192);
        assertThat(p.receiveInlineThreshold()).isEqualTo(16384);
        assertThat(p.remoteInvalidation()).isTrue();
    }

    @Test
    void rfc8797Section5_1APeerWithoutABlockIsTakenToHaveSentTheDefaults() {
        byte[] local = block(true, 65536, 65536);
        for (byte[] peer : new byte[][] {null, new byte[0], bytes("0102030405060708090a"),
                bytes("f6ab0e18" + "02" + "01" + "ffff"), bytes("f6ab0e18" + "01" + "01" + "ff")}) {
            RpcRdmaParameters p = RpcRdmaParameters.negotiate(local, peer);
            assertThat(p.peerAdvertised()).isFalse();
            assertThat(p.peer()).isEqualTo(RpcRdmaPrivateData.defaults());
            assertThat(p.sendInlineThreshold()).isEqualTo(1024);
            assertThat(p.receiveInlineThreshold()).isEqualTo(1024);
            assertThat(p.remoteInvalidation()).as("R is clear in the defaults").isFalse();
            assertThat(p.local()).isEqualTo(RpcRdmaPrivateData.of(true, 65536, 65536));
        }
    }

    @Test
    void aPeerAdvertisingExactlyTheDefaultsIsStillAdvertised() {
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(block(false, 8192, 8192), block(false, 1024, 1024));
        assertThat(p.peerAdvertised()).isTrue();
        assertThat(p.peer()).isEqualTo(RpcRdmaPrivateData.defaults());
    }

    @Test
    void rfc8797Section5_1NoLocalBlockMeansTheDefaultsForThisSideToo() {
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(new byte[0], block(true, 262144, 262144));
        assertThat(p.local()).isEqualTo(RpcRdmaPrivateData.defaults());
        assertThat(p.peerAdvertised()).isTrue();
        assertThat(p.sendInlineThreshold()).isEqualTo(1024);
        assertThat(p.receiveInlineThreshold()).isEqualTo(1024);
        assertThat(p.remoteInvalidation()).isFalse();
    }

    @Test
    void neitherSideSendingABlockGivesTheRfc8166Defaults() {
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(null, null);
        RpcRdmaPrivateData d = RpcRdmaPrivateData.defaults();
        assertThat(p).isEqualTo(new RpcRdmaParameters(1024, 1024, false, false, d, d));
    }

    @Test
    void theLocalBlockIsFoundAfterTheApplicationsOwnOctets() {
        byte[] local = RpcRdmaPrivateData.of(true, 8192, 8192).appendTo(bytes("cafe"));
        RpcRdmaParameters p = RpcRdmaParameters.negotiate(local, block(true, 8192, 4096));
        assertThat(p.local()).isEqualTo(RpcRdmaPrivateData.of(true, 8192, 8192));
        assertThat(p.sendInlineThreshold()).isEqualTo(4096);
        assertThat(p.receiveInlineThreshold()).isEqualTo(8192);
    }

    @Test
    void rfc8797Section4_2TheConstructorRefusesThresholdsTheBlocksDoNotSettle() {
        RpcRdmaPrivateData local = RpcRdmaPrivateData.of(true, 8192, 4096);
        RpcRdmaPrivateData peer = RpcRdmaPrivateData.of(true, 16384, 2048);
        assertThat(new RpcRdmaParameters(2048, 4096, true, true, local, peer))
                .isEqualTo(RpcRdmaParameters.negotiate(local.encode(), peer.encode()));
        assertThatThrownBy(() -> new RpcRdmaParameters(8192, 4096, true, true, local, peer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sendInlineThreshold 8192 must be 2048, the smaller of the local send size and the peer's"
                        + " receive size (RFC 8797 §4.2)");
        assertThatThrownBy(() -> new RpcRdmaParameters(2048, 16384, true, true, local, peer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("receiveInlineThreshold 16384 must be 4096, the smaller of the local receive size and"
                        + " the peer's send size (RFC 8797 §4.2)");
    }

    @Test
    void rfc8797Section4_1TheConstructorRefusesRemoteInvalidationUnlessBothSetR() {
        RpcRdmaPrivateData local = RpcRdmaPrivateData.of(true, 4096, 4096);
        RpcRdmaPrivateData peer = RpcRdmaPrivateData.of(false, 4096, 4096);
        assertThatThrownBy(() -> new RpcRdmaParameters(4096, 4096, true, true, local, peer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("remoteInvalidation true must be false: it holds only when both peers set R"
                        + " (RFC 8797 §4.1)");
    }

    @Test
    void rfc8797Section5_1TheConstructorRefusesAnUnadvertisedPeerOtherThanTheDefaults() {
        RpcRdmaPrivateData local = RpcRdmaPrivateData.of(false, 4096, 4096);
        RpcRdmaPrivateData peer = RpcRdmaPrivateData.of(false, 4096, 4096);
        assertThatThrownBy(() -> new RpcRdmaParameters(4096, 4096, false, false, local, peer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a peer that advertised no block is taken to have sent the defaults, not RPC-over-RDMA v1"
                        + " {R=0 send=4096 receive=4096} (RFC 8797 §5.1)");
        assertThatThrownBy(() -> new RpcRdmaParameters(1024, 1024, false, false, null, peer))
                .isInstanceOf(NullPointerException.class).hasMessage("local");
    }
}
