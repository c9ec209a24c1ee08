package io.softrdma.rsocket;

import io.rsocket.frame.FrameLengthCodec;

/** Frame sizes on SoftRDMA: a frame is one message, so the largest message bounds it, under RSocket's own cap. */
final class Frames {
    private Frames() {
    }

    static int maxFrameLength(long maxMessageSize) {
        return (int) Math.min(maxMessageSize, FrameLengthCodec.FRAME_LENGTH_MASK);
    }
}
