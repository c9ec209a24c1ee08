package io.softrdma.fuzz;

import static io.softrdma.fuzz.FuzzSupport.expectOnly;
import static io.softrdma.fuzz.FuzzSupport.hex;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.rpc.RpcCallHeader;
import io.softrdma.rpc.RpcRdmaHeader;
import io.softrdma.rpc.RpcRdmaProcedure;
import io.softrdma.rpc.RpcRdmaProtocolException;
import io.softrdma.rpc.RpcReplyHeader;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What an RPC-over-RDMA peer sends (RFC 8166 §4.2, RFC 5531 §9): the transport header that starts every Send, then
 * the RPC call (at a server) or reply (at a client). The only exception a received message may cause is
 * {@link RpcRdmaProtocolException}, with a message; whatever decodes must encode back to the same octets, and a
 * decoded header must never claim more than the message holds. The seed corpus is the Linux NFS server captures of
 * ../shared/interop/nfs-rdma.
 */
@ExtendWith(ClassLeakCheck.class)
class RpcRdmaFuzzTest {

    /** One received Send: the transport header, then (for RDMA_MSG) an RPC call and, separately, an RPC reply. */
    @FuzzTest(maxDuration = "30s")
    void received(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        ByteBuf in = Unpooled.wrappedBuffer(data);
        RpcRdmaHeader header;
        try {
            header = RpcRdmaHeader.decode(in);
        } catch (RuntimeException e) {
            expectOnly(e, "from RpcRdmaHeader.decode of " + hex(data), RpcRdmaProtocolException.class);
            requireMessage(e);
            return;
        }
        int headerLength = in.readerIndex();
        if (headerLength > data.length) {
            throw new AssertionError("a header of " + headerLength + " octets from " + data.length);
        }
        if (header.version() == RpcRdmaHeader.VERSION_1) {
            // RFC 8166 §4.2: version 1 headers round-trip exactly.
            ByteBuf out = Unpooled.buffer(header.encodedLength());
            header.encode(out);
            byte[] encoded = ByteBufUtil.getBytes(out);
            if (encoded.length != headerLength || !java.util.Arrays.equals(encoded, 0, headerLength, data, 0,
                    headerLength)) {
                throw new AssertionError("decoded " + header + " encodes to " + hex(encoded) + ", not "
                        + hex(java.util.Arrays.copyOf(data, headerLength)));
            }
        }
        if (header.procedure() != RpcRdmaProcedure.RDMA_MSG) {
            return;
        }
        ByteBuf call = in.slice();
        try {
            RpcCallHeader c = RpcCallHeader.decode(call);
            // XDR padding is skipped, not checked (RFC 4506 §3: senders zero it), so lengths round-trip, not octets.
            if (c.encodedLength() != call.readerIndex()) {
                throw new AssertionError("call header " + c + " took " + call.readerIndex() + " octets, encodes to "
                        + c.encodedLength());
            }
        } catch (RuntimeException e) {
            expectOnly(e, "from RpcCallHeader.decode", RpcRdmaProtocolException.class, IllegalArgumentException.class);
            requireMessage(e);
        }
        ByteBuf reply = in.slice();
        try {
            RpcReplyHeader r = RpcReplyHeader.decode(reply);
            if (r.toException(100003, 4, 1) == null && !r.isSuccess()) {
                throw new AssertionError("a reply other than SUCCESS without an exception: " + r);
            }
        } catch (RuntimeException e) {
            expectOnly(e, "from RpcReplyHeader.decode", RpcRdmaProtocolException.class, IllegalArgumentException.class);
            requireMessage(e);
        }
    }

    private static void requireMessage(RuntimeException e) {
        if (e.getMessage() == null || e.getMessage().isEmpty()) {
            throw new AssertionError("an exception without a message", e);
        }
    }
}
