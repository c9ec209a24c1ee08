package io.softrdma.interop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/** Host ports for the forwards: 17xxx, each checked free on 127.0.0.1, never handed out twice per JVM. */
final class Ports {
    private static final int FIRST = Integer.getInteger("interop.firstPort", 17310);
    private static final int LAST = 17999;
    private static final AtomicInteger NEXT = new AtomicInteger(FIRST);

    private Ports() {}

    static int free() {
        for (int port = NEXT.getAndIncrement(); port <= LAST; port = NEXT.getAndIncrement()) {
            if (isFree(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1 in " + FIRST + ".." + LAST);
    }

    static boolean isFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
