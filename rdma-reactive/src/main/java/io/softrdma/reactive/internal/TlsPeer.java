package io.softrdma.reactive.internal;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The certificates a peer presented in the TLS handshake below MPA, read from the channel's {@link SslHandler}.
 *
 * <p>Thread safety: stateless.
 */
public final class TlsPeer {
    private TlsPeer() {
    }

    /**
     * The X.509 chain the peer presented, its own certificate first; empty without TLS, or when the peer presented
     * none (a client the server did not ask for one, or that declined under {@code want}).
     *
     * <p>Call once the MPA startup is over: MPA runs over TLS, so by then the handshake is over on both ends (a
     * TLS 1.3 server has the client's Finished before the MPA Request, a client has the server's before the Reply).
     *
     * @throws IllegalStateException if the channel has TLS whose handshake has not succeeded: asked too early
     */
    public static List<X509Certificate> certificates(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return List.of();
        }
        if (!ssl.handshakeFuture().isSuccess()) {
            throw new IllegalStateException("the TLS handshake of " + channel + " has not succeeded (yet): the peer's"
                    + " certificates are known only once it has, before the MPA startup ends");
        }
        Certificate[] chain;
        try {
            chain = ssl.engine().getSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException none) {
            return List.of();
        }
        List<X509Certificate> certificates = new ArrayList<>(chain.length);
        for (Certificate c : chain) {
            if (c instanceof X509Certificate x509) {
                certificates.add(x509);
            }
        }
        return List.copyOf(certificates);
    }
}
