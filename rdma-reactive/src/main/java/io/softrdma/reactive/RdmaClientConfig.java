package io.softrdma.reactive;

import java.util.Objects;

/**
 * What an {@link RdmaClient} is set to, besides its reactor-netty {@code TcpClient} (host, port, options,
 * TLS: {@link RdmaClient#tcpClient()}): the settings its sessions share with a server's, and the private
 * data of its MPA Request.
 *
 * <p>Thread safety: immutable.
 */
public final class RdmaClientConfig {
    private final RdmaSessionConfig session;
    private final byte[] privateData;

    RdmaClientConfig(RdmaSessionConfig session, byte[] privateData) {
        this.session = Objects.requireNonNull(session, "session");
        this.privateData = Objects.requireNonNull(privateData, "privateData").clone();
    }

    /** Device, MPA settings, queue pair shape, messaging and metrics. */
    public RdmaSessionConfig session() {
        return session;
    }

    /** A copy of the application's private data for the MPA Request (empty by default). */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The same array; not to be changed or handed out. */
    byte[] privateDataUnsafe() {
        return privateData;
    }

    RdmaClientConfig withSession(RdmaSessionConfig session) {
        return new RdmaClientConfig(session, privateData);
    }

    RdmaClientConfig withPrivateData(byte[] privateData) {
        return new RdmaClientConfig(session, privateData);
    }

    @Override
    public String toString() {
        return "RdmaClientConfig[" + session + ", privateData=" + privateData.length + " octets]";
    }
}
