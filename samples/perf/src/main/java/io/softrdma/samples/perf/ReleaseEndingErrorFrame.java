package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import java.net.SocketAddress;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A workaround, to go once rdma-rsocket releases the frame itself: when a SoftRDMA RSocket connection ends other than
 * by its own close (for instance when the peer closes it without a Terminate, RFC 5040 §6.2), the
 * transport hands RSocket a stream-0 ERROR frame it made up ({@code RdmaDuplexConnection.ended}) and never releases
 * it, while every frame that came from the wire is released once RSocket's {@code onNext} returns (as Reactor Netty
 * releases TCP's). RSocket 1.1.5 does not release what it receives, so each run would leak that frame at its end.
 * This releases a stream-0 ERROR frame still referenced when the inbound frames then end.
 *
 * <p>It wraps the connection under both transports, so that the same code runs over each: one pass-through
 * operator per inbound frame, the same on both sides. Over TCP it never finds such a frame.
 *
 * <p>Thread safety: stateless; each connection's wrapper is used by RSocket's inbound subscriber, one signal at a
 * time.
 */
final class ReleaseEndingErrorFrame implements DuplexConnectionInterceptor {
    @Override
    public DuplexConnection apply(Type type, DuplexConnection connection) {
        return type == Type.SOURCE ? new Releasing(connection) : connection;
    }

    /** The source connection, its inbound frames watched for the last one. */
    private static final class Releasing implements DuplexConnection {
        private final DuplexConnection source;
        /** The last frame handed to RSocket (not retained): the inbound thread's only. */
        private ByteBuf last;

        Releasing(DuplexConnection source) {
            this.source = source;
        }

        @Override
        public Flux<ByteBuf> receive() {
            return source.receive().doOnNext(this::handed).doOnError(e -> releaseMadeUpError());
        }

        private void handed(ByteBuf frame) {
            last = frame;
        }

        private void releaseMadeUpError() {
            ByteBuf frame = last;
            last = null;
            if (frame != null && frame.refCnt() > 0 && FrameHeaderCodec.streamId(frame) == 0
                    && FrameHeaderCodec.frameType(frame) == FrameType.ERROR) {
                frame.release();
            }
        }

        @Override
        public void sendFrame(int streamId, ByteBuf frame) {
            source.sendFrame(streamId, frame);
        }

        @Override
        public void sendErrorAndClose(RSocketErrorException e) {
            source.sendErrorAndClose(e);
        }

        @Override
        public ByteBufAllocator alloc() {
            return source.alloc();
        }

        @Override
        public SocketAddress remoteAddress() {
            return source.remoteAddress();
        }

        @Override
        public double availability() {
            return source.availability();
        }

        @Override
        public Mono<Void> onClose() {
            return source.onClose();
        }

        @Override
        public void dispose() {
            source.dispose();
        }

        @Override
        public boolean isDisposed() {
            return source.isDisposed();
        }
    }
}
