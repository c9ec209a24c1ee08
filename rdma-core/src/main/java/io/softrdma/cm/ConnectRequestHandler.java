package io.softrdma.cm;

/**
 * The consumer of a listener: decides on each incoming connection. Called on the connection's event
 * loop: it must not block, but may decide later from any thread (within the MPA accept timeout).
 */
@FunctionalInterface
public interface ConnectRequestHandler {
    void onConnectRequest(ConnectRequest request);
}
