package io.softrdma.mpa;

import static io.softrdma.testing.Hex.bytes;
import static io.softrdma.testing.Hex.drainOutbound;
import static io.softrdma.testing.Hex.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.internal.mpa.MpaEstablishedEvent;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.mpa.MpaStartupException.Reason;
import io.softrdma.testing.Hex;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MPA revision 2 with RFC 6581's enhanced connection setup, as Linux does it (flag 0x10, IRD/ORD block
 * leading the private data). The frames are the ones in ../shared/interop/siw-vm/captures.
 */
class EnhancedStartupTest {
    private static final String REQ_KEY = "4d504120494420526571204672616d65";
    private static final String REP_KEY = "4d504120494420526570204672616d65";
    private static final MpaSettings V2 = MpaSettings.defaults().withCrc(false);

    private static String frame(String key, int flags, int rev, String pd) {
        return key + String.format("%02x%02x%04x", flags, rev, bytes(pd).length) + pd;
    }

    /** The layer above MPA: records the established event. */
    static final class Above extends ChannelInboundHandlerAdapter {
        MpaEstablishedEvent event;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof MpaEstablishedEvent e) {
                event = e;
            }
        }
    }

    private static MpaStartupHandler initiator(MpaSettings settings, int ird, int ord, String pd) {
        return MpaStartupHandler.initiator(settings, ird, ord, bytes(pd));
    }

    // ---- the Request ----

    @Test
    void rfc6581Section5InitiatorSendsEnhancedRequestWithIrdOrdLikeSiwRpingClient() {
        // g2h_default_rping.txt: siw's rping client, IRD 1, ORD 1.
        EmbeddedChannel ch = new EmbeddedChannel(initiator(V2, 1, 1, ""));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REQ_KEY + "10020004" + "00010001");
        ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5TheBlockLeadsTheApplicationPrivateData() {
        EmbeddedChannel ch = new EmbeddedChannel(initiator(V2.withCrc(true), 200, 200, "616263"));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REQ_KEY + "50020007" + "00c800c8" + "616263");
        ch.finishAndReleaseAll();
    }

    @ParameterizedTest(name = "{0} -> ord word {1}")
    @CsvSource({"WRITE,8001", "READ,4001", "ANY,c001"})
    void rfc6581Section4PeerToPeerInitiatorOffersItsRtrKinds(PeerToPeerMode mode, String ordWord) {
        // g2h_p2p_rping.txt: siw's peer_to_peer=1 offers both: 80 01 c0 01.
        EmbeddedChannel ch = new EmbeddedChannel(initiator(V2.withPeerToPeer(mode), 1, 1, ""));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REQ_KEY + "10020004" + "8001" + ordWord);
        ch.finishAndReleaseAll();
    }

    @Test
    void revision1RequestHasNoBlock() {
        EmbeddedChannel ch = new EmbeddedChannel(initiator(V2.withRevision(1), 1, 1, "61"));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REQ_KEY + "00010001" + "61");
        ch.finishAndReleaseAll();
    }

    @Test
    void argumentsThatCannotBeSentFailFast() {
        assertThatThrownBy(() -> initiator(V2, 0x4000, 1, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IRD 16384 does not fit the 14-bit field");
        assertThatThrownBy(() -> initiator(V2.withPeerToPeer(PeerToPeerMode.READ), 1, 0, ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs ORD of at least 1");
        assertThatThrownBy(() -> MpaStartupHandler.initiator(V2, new byte[509]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("509 octets of private data exceed the maximum of 508")
                .hasMessageContaining("4-octet IRD/ORD block");
        assertThatThrownBy(() -> V2.withRevision(1).withPeerToPeer(PeerToPeerMode.WRITE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs MPA revision 2");
        assertThatThrownBy(() -> V2.withRevision(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MPA revision 3 is not supported");
    }

    // ---- the initiator reads the Reply ----

    private static final class Started {
        final EmbeddedChannel ch;
        final MpaStartupHandler handler;
        final Above above = new Above();

        Started(MpaStartupHandler handler) {
            this.handler = handler;
            this.ch = new EmbeddedChannel(handler, above);
            drainOutbound(ch);
        }

        MpaNegotiation reply(int flags, int rev, String pd) throws Exception {
            ch.writeInbound(Hex.buf(frame(REP_KEY, flags, rev, pd)));
            return handler.outcome().get(0, TimeUnit.SECONDS);
        }

        MpaStartupException failedReply(int flags, int rev, String pd) {
            ch.writeInbound(Hex.buf(frame(REP_KEY, flags, rev, pd)));
            try {
                handler.outcome().get(0, TimeUnit.SECONDS);
                throw new AssertionError("the startup succeeded");
            } catch (ExecutionException e) {
                return (MpaStartupException) e.getCause();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void rfc6581Section5InitiatorTakesOrdNoDeeperThanTheResponderIrd() throws Exception {
        // h2g_rev2_irdord_200_pd.txt: asked 200/200, siw answered 128/128.
        Started s = new Started(initiator(V2, 200, 200, "aa"));
        MpaNegotiation n = s.reply(0x10, 2, "00800080" + "bb");
        assertThat(n.enhanced()).isTrue();
        assertThat(n.revision()).isEqualTo(2);
        assertThat(n.ird()).isEqualTo(200);
        assertThat(n.ord()).isEqualTo(128);
        assertThat(n.readyToReceive()).isEqualTo(ReadyToReceive.NONE);
        assertThat(n.peerPrivateData()).isEqualTo(bytes("bb"));
        assertThat(n.localPrivateData()).isEqualTo(bytes("aa"));
        assertThat(n.peerIrdOrd()).isEqualTo(IrdOrdHeader.of(128, 128));
        assertThat(s.above.event.refusal()).isNull();
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5ResponderOrdAboveInitiatorIrdIsRefusedWithInsufficientIrd() {
        Started s = new Started(initiator(V2, 4, 4, ""));
        MpaStartupException e = s.failedReply(0x10, 2, "00040005");
        assertThat(e.reason()).isEqualTo(Reason.INSUFFICIENT_IRD);
        assertThat(e.getMessage()).contains("the responder's ORD 5 exceeds this initiator's IRD 4")
                .contains("Layer 2 EType 0 Code 0x06");
        // The codec is in place so that the layer above can send the Terminate (Layer 2, EType 0, 0x06).
        assertThat(s.above.event.refusal()).isEqualTo(LlpErrorCode.INSUFFICIENT_IRD);
        assertThat(s.ch.pipeline().get(FpduEncoder.class)).isNotNull();
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5ResponderOrdEqualToInitiatorIrdIsFine() throws Exception {
        Started s = new Started(initiator(V2, 4, 4, ""));
        assertThat(s.reply(0x10, 2, "00040004").ord()).isEqualTo(4);
        assertThat(s.above.event.refusal()).isNull();
        s.ch.finishAndReleaseAll();
    }

    @Test
    void aRefusedStreamIsClosedAfterTheLingerEvenWithoutALayerToTerminate() {
        Started s = new Started(initiator(V2, 4, 4, ""));
        s.failedReply(0x10, 2, "00040005");
        assertThat(s.ch.isOpen()).as("open for the layer above to send its Terminate").isTrue();
        s.ch.advanceTimeBy(MpaStartupHandler.REFUSAL_LINGER.toMillis(), TimeUnit.MILLISECONDS);
        s.ch.runScheduledPendingTasks();
        assertThat(s.ch.isOpen()).isFalse();
        s.ch.finishAndReleaseAll();
    }

    @Test
    void anyModeWithOrdZeroOffersOnlyTheWriteRtr() {
        EmbeddedChannel ch = new EmbeddedChannel(initiator(V2.withPeerToPeer(PeerToPeerMode.ANY), 1, 0, ""));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REQ_KEY + "10020004" + "8001" + "8000");
        ch.finishAndReleaseAll();
    }

    @ParameterizedTest(name = "offered {0}, reply ord word {1} -> {2}")
    @CsvSource({"WRITE,8001,WRITE", "READ,4001,READ", "ANY,8001,WRITE", "ANY,4001,READ", "ANY,c001,WRITE"})
    void rfc6581Section5PeerToPeerRtrIsTheCommonKind(PeerToPeerMode offered, String ordWord, ReadyToReceive rtr)
            throws Exception {
        Started s = new Started(initiator(V2.withPeerToPeer(offered), 1, 1, ""));
        assertThat(s.reply(0x10, 2, "8001" + ordWord).readyToReceive()).isEqualTo(rtr);
        s.ch.finishAndReleaseAll();
    }

    @ParameterizedTest(name = "offered {0}, reply {1}")
    @CsvSource({"WRITE,80014001", "READ,80018001", "ANY,80010001", "WRITE,00018001"})
    void rfc6581Section5NoCommonRtrIsRefusedWithNoMatchingRtr(PeerToPeerMode offered, String block) {
        Started s = new Started(initiator(V2.withPeerToPeer(offered), 1, 1, ""));
        MpaStartupException e = s.failedReply(0x10, 2, block);
        assertThat(e.reason()).isEqualTo(Reason.NO_MATCHING_RTR);
        assertThat(e.getMessage()).contains("Code 0x07");
        assertThat(s.above.event.refusal()).isEqualTo(LlpErrorCode.NO_MATCHING_RTR);
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5EnhancedRequestAnsweredWithoutTheFlagFailsAsLinuxDoes() {
        // g2h_reply_not_enhanced.txt: siw logs "mpa reply error: vers 2, enhcd 0" and closes.
        Started s = new Started(initiator(V2, 1, 1, ""));
        MpaStartupException e = s.failedReply(0x00, 2, "");
        assertThat(e.reason()).isEqualTo(Reason.INVALID_ENHANCED_FRAME);
        assertThat(e.getMessage()).contains("lacks the enhanced flag 0x10");
        assertThat(s.ch.isOpen()).isFalse();
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5EnhancedReplyWithoutItsBlockFails() {
        Started s = new Started(initiator(V2, 1, 1, ""));
        MpaStartupException e = s.failedReply(0x10, 2, "0001");
        assertThat(e.reason()).isEqualTo(Reason.INVALID_ENHANCED_FRAME);
        assertThat(e.getMessage()).contains("only 2 octets of private data, no IRD/ORD block");
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5ARevision1ReplyToARevision2RequestRunsAsRevision1() throws Exception {
        Started s = new Started(initiator(V2, 3, 2, ""));
        MpaNegotiation n = s.reply(0x00, 1, "cc");
        assertThat(n.revision()).isEqualTo(1);
        assertThat(n.enhanced()).isFalse();
        assertThat(n.ird()).isEqualTo(3);
        assertThat(n.ord()).isEqualTo(2);
        assertThat(n.peerPrivateData()).isEqualTo(bytes("cc"));
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5PeerToPeerWithARevision1ResponderIsRefused() {
        Started s = new Started(initiator(V2.withPeerToPeer(PeerToPeerMode.WRITE), 1, 1, ""));
        assertThat(s.failedReply(0x00, 1, "").reason()).isEqualTo(Reason.NO_MATCHING_RTR);
        s.ch.finishAndReleaseAll();
    }

    @Test
    void rejectingEnhancedReplyHandsTheApplicationPrivateDataWithoutTheBlock() {
        Started s = new Started(initiator(V2, 1, 1, ""));
        MpaStartupException e = s.failedReply(0x30, 2, "00000000" + "6e6f7065");
        assertThat(e).isInstanceOf(MpaRejectedException.class);
        assertThat(((MpaRejectedException) e).privateData()).isEqualTo(bytes("6e6f7065"));
        s.ch.finishAndReleaseAll();
    }

    // ---- the responder ----

    private static final class Responding {
        final EmbeddedChannel ch;
        final MpaStartupHandler handler;
        final AtomicReference<MpaStartupFrame> request = new AtomicReference<>();

        Responding(MpaSettings settings, int ird, int ord, String pd) {
            handler = MpaStartupHandler.responder(settings, (req, decision) -> {
                request.set(req);
                decision.accept(bytes(pd), ird, ord);
            });
            ch = new EmbeddedChannel(handler);
        }

        String replyTo(int flags, int rev, String pd) {
            ch.writeInbound(Hex.buf(frame(REQ_KEY, flags, rev, pd)));
            return hex(drainOutbound(ch));
        }

        MpaNegotiation negotiation() throws Exception {
            return handler.outcome().get(0, TimeUnit.SECONDS);
        }
    }

    @Test
    void rfc6581Section5ResponderAnswersSiwRpingClientWithIrdOrdCutToTheOffer() throws Exception {
        // g2h_default_rping.txt: the request 10 02 00 04 | 00 01 00 01.
        Responding r = new Responding(V2, 128, 128, "");
        assertThat(r.replyTo(0x10, 2, "00010001")).isEqualTo(REP_KEY + "10020004" + "00010001");
        MpaNegotiation n = r.negotiation();
        assertThat(n.ird()).isEqualTo(1);
        assertThat(n.ord()).isEqualTo(1);
        assertThat(n.enhanced()).isTrue();
        assertThat(r.request.get().applicationPrivateData()).isEmpty();
        r.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5ResponderOrdNeverExceedsTheInitiatorIrd() throws Exception {
        Responding r = new Responding(V2, 8, 16, "dd");
        assertThat(r.replyTo(0x10, 2, "000c0002" + "ee")).isEqualTo(REP_KEY + "10020005" + "0002000c" + "dd");
        assertThat(r.request.get().applicationPrivateData()).isEqualTo(bytes("ee"));
        assertThat(r.negotiation().peerPrivateData()).isEqualTo(bytes("ee"));
        r.ch.finishAndReleaseAll();
    }

    @ParameterizedTest(name = "accepting {0}, offered ord word {1} -> reply {2}")
    @CsvSource({
        // g2h_p2p_rping.txt: siw offers both; Linux picks Write.
        "OFF,c001,80018001", "ANY,c001,80018001", "ANY,4001,80014001", "ANY,8001,80018001",
        // Nothing offered: Linux proposes Write.
        "ANY,0001,80018001", "READ,0001,80014001",
        "READ,c001,80014001", "WRITE,4001,80010001", "READ,8001,80010001"})
    void rfc6581Section5ResponderPicksTheRtrMessage(PeerToPeerMode accepting, String ordWord, String replyBlock)
            throws Exception {
        Responding r = new Responding(V2.withPeerToPeer(accepting), 1, 1, "");
        assertThat(r.replyTo(0x10, 2, "8001" + ordWord)).isEqualTo(REP_KEY + "10020004" + replyBlock);
        ReadyToReceive expected = replyBlock.endsWith("8001") ? ReadyToReceive.WRITE
                : replyBlock.endsWith("4001") ? ReadyToReceive.READ : ReadyToReceive.NONE;
        assertThat(r.negotiation().readyToReceive()).isEqualTo(expected);
        r.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5ReadRtrNeedsAnIrdOfOneEvenWhenTheInitiatorOffersOrdZero() throws Exception {
        Responding r = new Responding(V2, 4, 4, "");
        assertThat(r.replyTo(0x10, 2, "80044000")).isEqualTo(REP_KEY + "10020004" + "80014004");
        assertThat(r.negotiation().ird()).isEqualTo(1);
        r.ch.finishAndReleaseAll();
    }

    @Test
    void linuxTreatsRevision2WithoutTheFlagAsRevision1() throws Exception {
        // h2g_rev2_noenhanced_handshake.txt: siw answers 00 02 00 00.
        Responding r = new Responding(V2, 128, 128, "");
        assertThat(r.replyTo(0x00, 2, "")).isEqualTo(REP_KEY + "00020000");
        assertThat(r.negotiation().enhanced()).isFalse();
        assertThat(r.negotiation().ird()).isEqualTo(128);
        r.ch.finishAndReleaseAll();
    }

    @Test
    void rfc5044Revision1RequestGetsARevision1Reply() throws Exception {
        Responding r = new Responding(V2, 128, 128, "");
        assertThat(r.replyTo(0x40, 1, "01")).isEqualTo(REP_KEY + "40010000");
        assertThat(r.negotiation().crc()).isTrue();
        r.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5ResponderLimitedToRevision1AnswersAnEnhancedRequestWithRevision1() throws Exception {
        Responding r = new Responding(V2.withRevision(1), 128, 128, "");
        assertThat(r.replyTo(0x10, 2, "00010001")).isEqualTo(REP_KEY + "00010000");
        assertThat(r.negotiation().revision()).isEqualTo(1);
        r.ch.finishAndReleaseAll();
    }

    @Test
    void rfc6581Section5EnhancedRequestWithoutItsBlockIsRejectedAsLinuxDoes() {
        MpaStartupHandler h = MpaStartupHandler.responder(V2, (req, d) -> {
            throw new AssertionError("not for the consumer");
        });
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Hex.buf(frame(REQ_KEY, 0x10, 2, "0001")));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REP_KEY + "20020000");
        assertThat(h.outcome()).isCompletedExceptionally();
        assertThat(h.outcome().handle((n, t) -> ((MpaStartupException) t.getCause()).reason()).join())
                .isEqualTo(Reason.INVALID_ENHANCED_FRAME);
        ch.finishAndReleaseAll();
    }

    @ParameterizedTest(name = "Rev {0}")
    @CsvSource({"0", "3"})
    void rfc5044Section7_1_1ResponderClosesOnRevisionsItDoesNotSpeak(int rev) {
        // h2g_rev3.txt: siw closes without a Reply on Rev 3.
        MpaStartupHandler h = MpaStartupHandler.responder(V2, (req, d) -> d.accept(new byte[0]));
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Hex.buf(frame(REQ_KEY, 0x00, rev, "")));
        assertThat(drainOutbound(ch)).isEmpty();
        assertThat(ch.isOpen()).isFalse();
        assertThat(h.outcome().handle((n, t) -> ((MpaStartupException) t.getCause()).reason()).join())
                .isEqualTo(Reason.UNSUPPORTED_REVISION);
        ch.finishAndReleaseAll();
    }

    @Test
    void rejectingAnEnhancedRequestKeepsTheBlockAheadOfTheReason() {
        MpaStartupHandler h = MpaStartupHandler.responder(V2, (req, d) -> d.reject(bytes("6e6f7065")));
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Hex.buf(frame(REQ_KEY, 0x10, 2, "00010001")));
        assertThat(hex(drainOutbound(ch))).isEqualTo(REP_KEY + "30020008" + "00000000" + "6e6f7065");
        ch.finishAndReleaseAll();
    }

    // ---- the block itself ----

    @Test
    void rfc6581Section5IrdOrdBlockRoundTripsEveryBit() {
        IrdOrdHeader h = new IrdOrdHeader(true, true, 0x3FFF, true, true, 0x2001);
        byte[] b = new byte[4];
        h.encode(b, 0);
        assertThat(hex(b)).isEqualTo("ffffe001");
        assertThat(IrdOrdHeader.decode(b)).isEqualTo(h);
        assertThat(IrdOrdHeader.decode(bytes("40008000"))).isEqualTo(new IrdOrdHeader(false, true, 0, true, false, 0));
        assertThatThrownBy(() -> IrdOrdHeader.decode(bytes("000100"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 4 octets");
    }
}
