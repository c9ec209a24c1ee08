package io.softrdma.reactive;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on loopback that reads the iWARP stream it passes on: the MPA startup frames (RFC 5044
 * §7.1), then FPDUs (§5, markers off; a CRC when the Reply's C flag says so), and in each the DDP and
 * RDMAP headers (RFC 5041 §5.1; RFC 5040 §4.2, §4.4). It counts what tests want to see on the wire —
 * Read Requests out against Read Responses back (the ORD bound, RFC 5040 §6.1) and the Sends a stream
 * took — independently of either side's own bookkeeping. One connection; bytes are forwarded after
 * they are parsed, so what the peer acts on has been counted.
 */
final class WireTap implements AutoCloseable {
    private static final int MPA_KEY = 16;
    private static final int DDP_TAGGED = 0x80;
    private static final int DDP_LAST = 0x40;
    private static final int READ_REQUEST = 0x1;
    private static final int READ_RESPONSE = 0x2;

    private final ServerSocket listener;
    private final int target;
    private volatile boolean crc;
    private volatile Socket in;
    private volatile Socket out;
    /** Read Requests seen from the initiator whose last Read Response has not come back through the tap. */
    final AtomicInteger readsOutstanding = new AtomicInteger();
    final AtomicInteger mostReadsOutstanding = new AtomicInteger();
    final AtomicInteger readRequests = new AtomicInteger();
    /** Complete Sends (every opcode of the Send family, last segment) from the initiator. */
    final AtomicInteger initiatorSends = new AtomicInteger();
    volatile Throwable failure;

    WireTap(int targetPort) throws IOException {
        this.target = targetPort;
        this.listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::relay, "wire-tap");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void relay() {
        try {
            in = listener.accept();
            out = new Socket(InetAddress.getLoopbackAddress(), target);
            in.setTcpNoDelay(true);
            out.setTcpNoDelay(true);
            InputStream fromResponder = out.getInputStream();
            OutputStream toInitiator = in.getOutputStream();
            Thread back = new Thread(() -> pump(fromResponder, toInitiator, false), "wire-tap-back");
            back.setDaemon(true);
            back.start();
            pump(in.getInputStream(), out.getOutputStream(), true);
        } catch (IOException e) {
            if (!listener.isClosed()) {
                failure = e;
            }
        }
    }

    private void pump(InputStream from, OutputStream to, boolean fromInitiator) {
        DataInputStream s = new DataInputStream(from);
        try {
            byte[] startup = new byte[MPA_KEY + 4];
            s.readFully(startup);
            int privateDataLength = ((startup[18] & 0xff) << 8) | (startup[19] & 0xff);
            byte[] privateData = s.readNBytes(privateDataLength);
            if (!fromInitiator) {
                crc = (startup[MPA_KEY] & 0x40) != 0; // the Reply's C flag decides (RFC 5044 §7.1.2)
            }
            to.write(startup);
            to.write(privateData);
            to.flush();
            while (true) {
                int length = s.readUnsignedShort();
                byte[] ulpdu = new byte[length];
                s.readFully(ulpdu);
                int trailer = ((4 - (2 + length) % 4) % 4) + (crc ? 4 : 0);
                byte[] rest = new byte[trailer];
                s.readFully(rest);
                count(ulpdu, fromInitiator);
                to.write(length >> 8);
                to.write(length);
                to.write(ulpdu);
                to.write(rest);
                to.flush();
            }
        } catch (EOFException | java.net.SocketException e) {
            close();
        } catch (IOException | RuntimeException e) {
            failure = e;
            close();
        }
    }

    private void count(byte[] ulpdu, boolean fromInitiator) {
        if (ulpdu.length < 2) {
            return;
        }
        int ddp = ulpdu[0] & 0xff;
        int opcode = ulpdu[1] & 0x0f;
        boolean last = (ddp & DDP_LAST) != 0;
        if (fromInitiator && (ddp & DDP_TAGGED) == 0 && opcode == READ_REQUEST) {
            readRequests.incrementAndGet();
            mostReadsOutstanding.accumulateAndGet(readsOutstanding.incrementAndGet(), Math::max);
        } else if (fromInitiator && (ddp & DDP_TAGGED) == 0 && last && opcode >= 0x3 && opcode <= 0x6) {
            initiatorSends.incrementAndGet();
        } else if (!fromInitiator && (ddp & DDP_TAGGED) != 0 && last && opcode == READ_RESPONSE) {
            readsOutstanding.decrementAndGet();
        }
    }

    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {listener, in, out}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // closing on the way out
            }
        }
    }
}
