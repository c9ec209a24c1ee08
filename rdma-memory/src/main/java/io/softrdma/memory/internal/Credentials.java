package io.softrdma.memory.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The client's credential in the MPA Request's private data (RFC 5044 §7.1): the magic {@code "SRMC"}, one octet
 * of length, then that many UTF-8 octets. rdma-reactive puts its RFC 8797 block (and the RFC 7306 extensions' block)
 * before the application's private data, so the server looks for the magic rather than at a fixed place, as RFC 8797
 * §5.2 does for its own block.
 */
public final class Credentials {
    private static final byte[] MAGIC = {'S', 'R', 'M', 'C'};

    private Credentials() {
    }

    /** The private data carrying {@code credential}; empty if null. */
    public static byte[] encode(String credential) {
        if (credential == null) {
            return new byte[0];
        }
        byte[] utf8 = credential.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 255) {
            throw new IllegalArgumentException("a credential must be at most 255 UTF-8 octets");
        }
        byte[] block = Arrays.copyOf(MAGIC, MAGIC.length + 1 + utf8.length);
        block[MAGIC.length] = (byte) utf8.length;
        System.arraycopy(utf8, 0, block, MAGIC.length + 1, utf8.length);
        return block;
    }

    /** The credential in the peer's private data, or null if there is none (or it is cut short). */
    public static String find(byte[] privateData) {
        if (privateData == null) {
            return null;
        }
        outer:
        for (int i = 0; i + MAGIC.length < privateData.length; i++) {
            for (int j = 0; j < MAGIC.length; j++) {
                if (privateData[i + j] != MAGIC[j]) {
                    continue outer;
                }
            }
            int length = privateData[i + MAGIC.length] & 0xff;
            int start = i + MAGIC.length + 1;
            if (length == 0 || start + length > privateData.length) {
                continue;
            }
            return new String(privateData, start, length, StandardCharsets.UTF_8);
        }
        return null;
    }
}
