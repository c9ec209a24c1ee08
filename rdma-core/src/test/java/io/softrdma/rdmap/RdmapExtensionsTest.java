package io.softrdma.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.cm.RpcRdmaPrivateData;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The block that agrees on RFC 7306's extensions in the MPA private data: RFC 7306 defines no negotiation, so
 * the octets and the rules for finding and answering them are this stack's own contract with its peers.
 */
class RdmapExtensionsTest {

    private static final RdmapExtensions ATOMICS_ONLY = new RdmapExtensions(true, false);
    private static final RdmapExtensions IMMEDIATE_ONLY = new RdmapExtensions(false, true);

    /** The 8 octets of a version 1 block with the given flags. */
    private static byte[] block(int version, int flags) {
        return new byte[] {0x53, 0x52, 0x44, 0x58, (byte) version, (byte) flags, 0, 0};
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) {
            length += p.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    // ---- appendTo ----

    @Test
    void appendToWritesSrdxVersionOneAndTheFlagsAfterThePrivateData() {
        byte[] privateData = {9, 8, 7};
        assertThat(ATOMICS_ONLY.appendTo(privateData)).containsExactly(9, 8, 7, 0x53, 0x52, 0x44, 0x58, 1, 0x01, 0, 0);
        assertThat(IMMEDIATE_ONLY.appendTo(privateData)).containsExactly(9, 8, 7, 0x53, 0x52, 0x44, 0x58, 1, 0x02, 0, 0);
        assertThat(RdmapExtensions.ALL.appendTo(privateData))
                .containsExactly(9, 8, 7, 0x53, 0x52, 0x44, 0x58, 1, 0x03, 0, 0);
        assertThat(privateData).as("the caller's array is not modified").containsExactly(9, 8, 7);
    }

    @Test
    void appendToEmptyPrivateDataIsTheBlockAlone() {
        assertThat(RdmapExtensions.ALL.appendTo(new byte[0])).isEqualTo(block(1, 0x03))
                .hasSize(RdmapExtensions.BLOCK_LENGTH);
    }

    @Test
    void noneAppendsNothingSoAPeerSeesExactlyTheApplicationsPrivateData() {
        byte[] privateData = {1, 2, 3};
        assertThat(RdmapExtensions.NONE.appendTo(privateData)).isSameAs(privateData);
        byte[] empty = new byte[0];
        assertThat(RdmapExtensions.NONE.appendTo(empty)).isSameAs(empty);
    }

    // ---- find ----

    @Test
    void findReadsTheFlagsOfEachCombination() {
        assertThat(RdmapExtensions.find(block(1, 0x01))).isEqualTo(ATOMICS_ONLY);
        assertThat(RdmapExtensions.find(block(1, 0x02))).isEqualTo(IMMEDIATE_ONLY);
        assertThat(RdmapExtensions.find(block(1, 0x03))).isEqualTo(RdmapExtensions.ALL);
        assertThat(RdmapExtensions.find(block(1, 0x00))).isEqualTo(RdmapExtensions.NONE);
    }

    @Test
    void findReadsTheBlockOnlyWhereAppendToPutsItAtTheEnd() {
        for (int prefix = 0; prefix <= 20; prefix++) {
            byte[] before = new byte[prefix];
            Arrays.fill(before, (byte) 0x5A);
            assertThat(RdmapExtensions.find(concat(before, block(1, 0x01))))
                    .as("block at the end, after %d octets", prefix).isEqualTo(ATOMICS_ONLY);
            // Application data that happens to hold the identifier (or a peer echoing the Request's private data
            // before its own) must not enable opcodes the peer may not have.
            assertThat(RdmapExtensions.find(concat(before, block(1, 0x02), new byte[] {1, 2, 3})))
                    .as("block in the middle, after %d octets", prefix).isEqualTo(RdmapExtensions.NONE);
        }
    }

    @Test
    void findRoundTripsAppendTo() {
        byte[] app = "application private data".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (RdmapExtensions e : new RdmapExtensions[] {ATOMICS_ONLY, IMMEDIATE_ONLY, RdmapExtensions.ALL}) {
            assertThat(RdmapExtensions.find(e.appendTo(app))).isEqualTo(e);
            assertThat(RdmapExtensions.find(e.appendTo(new byte[0]))).isEqualTo(e);
        }
    }

    @Test
    void findReturnsNoneWhenThereIsNoBlock() {
        assertThat(RdmapExtensions.find(null)).isSameAs(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(new byte[0])).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(new byte[] {1, 2, 3})).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find("no block in here at all".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(new byte[64])).isEqualTo(RdmapExtensions.NONE);
    }

    @Test
    void findIgnoresBlocksOfAnotherVersion() {
        // A later version may lay its flags out differently: reading them as version 1 could enable the wrong thing.
        assertThat(RdmapExtensions.find(block(2, 0x03))).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(block(0, 0x03))).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(block(0xFF, 0x03))).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(concat(block(2, 0x03), block(1, 0x01))))
                .as("the version 1 block that ends the data, after one of another version").isEqualTo(ATOMICS_ONLY);
    }

    @Test
    void findIgnoresATruncatedBlock() {
        byte[] whole = block(1, 0x03);
        for (int length = 0; length < whole.length; length++) {
            assertThat(RdmapExtensions.find(Arrays.copyOf(whole, length))).as("%d octets", length)
                    .isEqualTo(RdmapExtensions.NONE);
        }
        assertThat(RdmapExtensions.find(concat(new byte[] {1, 2, 3, 4}, Arrays.copyOf(whole, 7))))
                .as("a block cut short at the end of longer private data").isEqualTo(RdmapExtensions.NONE);
    }

    @Test
    void findIgnoresUnknownFlagBitsSoALaterRevisionCanAddSome() {
        assertThat(RdmapExtensions.find(block(1, 0xFD))).isEqualTo(ATOMICS_ONLY);
        assertThat(RdmapExtensions.find(block(1, 0xFC))).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.find(block(1, 0xFF))).isEqualTo(RdmapExtensions.ALL);
    }

    @Test
    void findTakesTheLastVersionOneBlock() {
        assertThat(RdmapExtensions.find(concat(block(1, 0x01), block(1, 0x02)))).isEqualTo(IMMEDIATE_ONLY);
        assertThat(RdmapExtensions.find(concat(block(1, 0x03), new byte[] {7}, block(1, 0x00))))
                .isEqualTo(RdmapExtensions.NONE);
    }

    // ---- and, any ----

    @Test
    void andKeepsWhatBothName() {
        assertThat(RdmapExtensions.ALL.and(ATOMICS_ONLY)).isEqualTo(ATOMICS_ONLY);
        assertThat(ATOMICS_ONLY.and(IMMEDIATE_ONLY)).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.ALL.and(RdmapExtensions.ALL)).isEqualTo(RdmapExtensions.ALL);
        assertThat(RdmapExtensions.NONE.and(RdmapExtensions.ALL)).isEqualTo(RdmapExtensions.NONE);
    }

    @Test
    void anyIsTrueWhenEitherExtensionIsNamed() {
        assertThat(RdmapExtensions.NONE.any()).isFalse();
        assertThat(ATOMICS_ONLY.any()).isTrue();
        assertThat(IMMEDIATE_ONLY.any()).isTrue();
        assertThat(RdmapExtensions.ALL.any()).isTrue();
    }

    // ---- answer, agreed ----

    @Test
    void answerAppendsWhatTheResponderSupportsOfTheRequestAfterItsOwnPrivateData() {
        byte[] reply = {4, 5};
        assertThat(RdmapExtensions.answer(RdmapExtensions.ALL, RdmapExtensions.ALL.appendTo(new byte[] {1}), reply))
                .isEqualTo(concat(reply, block(1, 0x03)));
        assertThat(RdmapExtensions.answer(ATOMICS_ONLY, RdmapExtensions.ALL.appendTo(new byte[0]), reply))
                .as("the responder supports less than offered").isEqualTo(concat(reply, block(1, 0x01)));
        assertThat(RdmapExtensions.answer(RdmapExtensions.ALL, IMMEDIATE_ONLY.appendTo(new byte[0]), reply))
                .as("the initiator offers less than supported").isEqualTo(concat(reply, block(1, 0x02)));
    }

    @Test
    void answerSendsNoBlockWhenNothingIsAgreed() {
        byte[] reply = {4, 5};
        // No block back tells an initiator exactly what a peer ignorant of the block would: use nothing.
        assertThat(RdmapExtensions.answer(RdmapExtensions.ALL, new byte[] {1, 2, 3}, reply)).isSameAs(reply);
        assertThat(RdmapExtensions.answer(RdmapExtensions.ALL, null, reply)).isSameAs(reply);
        assertThat(RdmapExtensions.answer(RdmapExtensions.NONE, RdmapExtensions.ALL.appendTo(new byte[0]), reply))
                .isSameAs(reply);
        assertThat(RdmapExtensions.answer(ATOMICS_ONLY, IMMEDIATE_ONLY.appendTo(new byte[0]), reply))
                .isSameAs(reply);
    }

    @Test
    void agreedIsWhatBothSidesBlocksName() {
        byte[] all = RdmapExtensions.ALL.appendTo(new byte[0]);
        byte[] atomics = ATOMICS_ONLY.appendTo(new byte[] {1, 2});
        assertThat(RdmapExtensions.agreed(all, all)).isEqualTo(RdmapExtensions.ALL);
        assertThat(RdmapExtensions.agreed(all, atomics)).isEqualTo(ATOMICS_ONLY);
        assertThat(RdmapExtensions.agreed(atomics, all)).isEqualTo(ATOMICS_ONLY);
        assertThat(RdmapExtensions.agreed(IMMEDIATE_ONLY.appendTo(new byte[0]), atomics))
                .isEqualTo(RdmapExtensions.NONE);
    }

    @Test
    void agreedIsNoneWhenEitherSideSentNoBlock() {
        byte[] all = RdmapExtensions.ALL.appendTo(new byte[0]);
        assertThat(RdmapExtensions.agreed(all, new byte[0])).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.agreed(all, null)).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.agreed(new byte[] {1, 2, 3}, all)).isEqualTo(RdmapExtensions.NONE);
        assertThat(RdmapExtensions.agreed(null, null)).isEqualTo(RdmapExtensions.NONE);
    }

    @Test
    void aFullHandshakeAgreesOnTheIntersection() {
        byte[] request = ATOMICS_ONLY.appendTo(new byte[] {42});
        byte[] reply = RdmapExtensions.answer(RdmapExtensions.ALL, request, new byte[] {43});
        assertThat(RdmapExtensions.agreed(request, reply)).as("initiator's view").isEqualTo(ATOMICS_ONLY);
        assertThat(RdmapExtensions.agreed(reply, request)).as("responder's view").isEqualTo(ATOMICS_ONLY);
    }

    // ---- next to RFC 8797 ----

    @Test
    void rfc8797Section4BlockStaysFirstAndIsStillFoundWhenOurBlockFollowsIt() {
        RpcRdmaPrivateData rpc = RpcRdmaPrivateData.of(true, 4096, 4096);
        byte[] rpcOnly = rpc.appendTo(new byte[0]);
        byte[] both = RdmapExtensions.ALL.appendTo(rpcOnly);

        assertThat(both).hasSize(RpcRdmaPrivateData.LENGTH + RdmapExtensions.BLOCK_LENGTH);
        // Linux's xprtrdma and svcrdma read the RFC 8797 block only at offset 0.
        assertThat(Arrays.copyOf(both, RpcRdmaPrivateData.LENGTH)).isEqualTo(rpc.encode());
        assertThat(RpcRdmaPrivateData.decode(both, 0)).isEqualTo(rpc);
        assertThat(RpcRdmaPrivateData.find(both)).contains(rpc);
        assertThat(RdmapExtensions.find(both)).isEqualTo(RdmapExtensions.ALL);
    }

    @Test
    void rfc8797Section5_2SearchIsNotFooledByOurBlockAndOursNotByItsBlock() {
        RpcRdmaPrivateData rpc = RpcRdmaPrivateData.of(false, 1024, 262144);
        assertThat(RpcRdmaPrivateData.find(RdmapExtensions.ALL.appendTo(new byte[0]))).isEmpty();
        assertThat(RdmapExtensions.find(rpc.encode())).isEqualTo(RdmapExtensions.NONE);
        byte[] both = ATOMICS_ONLY.appendTo(rpc.appendTo(new byte[] {1, 2, 3}));
        assertThat(RpcRdmaPrivateData.find(both)).contains(rpc);
        assertThat(RdmapExtensions.find(both)).isEqualTo(ATOMICS_ONLY);
    }
}
