package io.softrdma.memory;

import java.net.SocketAddress;
import java.security.Principal;
import java.util.Objects;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Who is at the other end of a memory session, as far as the server can tell: the subject of the certificate the peer
 * presented in the TLS handshake below MPA ({@link io.softrdma.reactive.RdmaSession#peerPrincipal()}), and/or the
 * credential its {@link RemoteMemory} put in the connection's private data (RFC 5044 §7.1 MPA Request private
 * data). A credential travels in the clear without TLS: treat it as a name, not a secret, unless TLS is on.
 *
 * <p>Thread safety: immutable.
 */
public final class PeerIdentity {
    private static final PeerIdentity ANONYMOUS = new PeerIdentity(null, null, null);

    private final Principal principal;
    private final String credential;
    private final SocketAddress address;

    private PeerIdentity(Principal principal, String credential, SocketAddress address) {
        this.principal = principal;
        this.credential = credential;
        this.address = address;
    }

    /**
     * A peer with this principal, credential and address, any of them null when unknown (tests, and the server
     * for its sessions).
     */
    public static PeerIdentity of(Principal principal, String credential, SocketAddress address) {
        return new PeerIdentity(principal, credential, address);
    }

    /** A peer that presented neither a certificate nor a credential. */
    public static PeerIdentity anonymous() {
        return ANONYMOUS;
    }

    /** The subject of the peer's TLS certificate, if it presented one. */
    public Optional<Principal> principal() {
        return Optional.ofNullable(principal);
    }

    /** The credential from the connection's private data, if the client sent one. */
    public Optional<String> credential() {
        return Optional.ofNullable(credential);
    }

    /** The peer's address, if known. */
    public Optional<SocketAddress> address() {
        return Optional.ofNullable(address);
    }

    /**
     * Whether {@code name} names this peer: equal to its credential, to its principal's name (e.g.
     * {@code "CN=orders,O=Example"}), or to that name's common name ({@code "orders"}).
     */
    public boolean isNamed(String name) {
        Objects.requireNonNull(name, "name");
        if (name.equals(credential)) {
            return true;
        }
        if (principal == null) {
            return false;
        }
        String full = principal.getName();
        return name.equals(full) || name.equals(commonName(full));
    }

    private static String commonName(String distinguishedName) {
        try {
            for (Rdn rdn : new LdapName(distinguishedName).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            // not an X.500 name: only the full name matches
        }
        return null;
    }

    /** How this peer is named in refusals and logs: principal, credential or "anonymous" (never a secret's value). */
    public String describe() {
        if (principal != null) {
            return "principal '" + principal.getName() + "'";
        }
        return credential != null ? "a credential" : "an anonymous peer";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerIdentity p && Objects.equals(principal, p.principal)
                && Objects.equals(credential, p.credential) && Objects.equals(address, p.address);
    }

    @Override
    public int hashCode() {
        return Objects.hash(principal, credential, address);
    }

    @Override
    public String toString() {
        return "PeerIdentity{" + describe() + (address != null ? " at " + address : "") + "}";
    }
}
