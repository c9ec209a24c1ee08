package io.softrdma.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Access control per region: every way a peer is refused, with the reason it is told, and the rights a lease carries
 * (the policy's grant intersected with the region's access), from a private-data credential or a TLS principal.
 */
// SelfSignedCertificate is deprecated in Netty 4.2 in favour of netty-pkitesting, which this build does not have.
@SuppressWarnings("deprecation")
class AccessControlTest {
    private static SelfSignedCertificate serverCert;
    private static SelfSignedCertificate ordersCert;
    private static SelfSignedCertificate otherCert;
    private Fixture fixture;

    @BeforeAll
    static void certificates() throws Exception {
        serverCert = new SelfSignedCertificate("localhost");
        ordersCert = new SelfSignedCertificate("orders-client");
        otherCert = new SelfSignedCertificate("someone-else");
    }

    @AfterAll
    static void delete() {
        serverCert.delete();
        ordersCert.delete();
        otherCert.delete();
    }

    @AfterEach
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static MemoryServer regions() {
        return MemoryServer.create()
                .region("readonly", 64, RegionAccess.READ)
                .region("open", 64, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC);
    }

    private void start(MemoryServer server, UnaryOperator<RemoteMemory.Builder> client) {
        fixture = new Fixture(server, client);
    }

    private void assertRefused(String region, Class<? extends RemoteMemoryException> type, String reason) {
        StepVerifier.create(fixture.client.region(region)).expectErrorSatisfies(e -> assertThat(e)
                .isExactlyInstanceOf(type).hasMessage(reason)
                .satisfies(x -> assertThat(((RemoteMemoryException) x).region()).isEqualTo(region)))
                .verify(Fixture.TIMEOUT);
        assertThat(fixture.server.leaseCount()).isZero();
    }

    @Test
    void byDefaultNothingIsLent() {
        start(regions(), c -> c.credential("orders"));
        assertRefused("open", RegionAccessDeniedException.class, "no access is granted to a credential on region"
                + " 'open' (the server's AccessPolicy grants nothing to it)");
        start2WithoutCredential();
        assertRefused("open", RegionAccessDeniedException.class, "no access is granted to an anonymous peer on region"
                + " 'open' (the server's AccessPolicy grants nothing to it)");
    }

    private void start2WithoutCredential() {
        fixture.close();
        start(regions(), c -> c);
    }

    @Test
    void aRegionThatDoesNotExist() {
        start(regions().policy(AccessPolicy.grant("orders", AccessPolicy.ANY_REGION, RegionAccess.READ)),
                c -> c.credential("orders"));
        assertRefused("nowhere", NoSuchRegionException.class, "no region 'nowhere' on this memory server");
    }

    @Test
    void aCredentialTheGrantDoesNotName() {
        start(regions().policy(AccessPolicy.grant("orders", "open", RegionAccess.READ)), c -> c.credential("billing"));
        assertRefused("open", RegionAccessDeniedException.class, "region 'open' is granted to other peers, not to a"
                + " credential");
    }

    @Test
    void aGrantOnAnotherRegion() {
        start(regions().policy(AccessPolicy.grant("orders", "open", RegionAccess.READ)), c -> c.credential("orders"));
        assertRefused("readonly", RegionAccessDeniedException.class, "no access is granted on region 'readonly' to a"
                + " credential");
    }

    @Test
    void rightsTheRegionDoesNotLend() {
        start(regions().policy(AccessPolicy.grant("orders", "readonly", RegionAccess.WRITE, RegionAccess.ATOMIC)),
                c -> c.credential("orders"));
        assertRefused("readonly", RegionAccessDeniedException.class, "region 'readonly' is lent with [READ] only, and"
                + " a credential is granted [WRITE, ATOMIC]");
    }

    @Test
    void aPolicyThatFailsOrDecidesNothingRefuses() {
        start(regions().policy((peer, region) -> {
            if (region.equals("open")) {
                throw new IllegalStateException("policy store down");
            }
            return null;
        }), c -> c.credential("orders"));
        assertRefused("open", RegionAccessDeniedException.class, "the server's access policy failed");
        assertRefused("readonly", RegionAccessDeniedException.class, "the server's access policy decided nothing");
    }

    @Test
    void aLeaseCarriesTheIntersectionAndAnOperationBeyondItIsRefusedLocally() {
        start(regions().policy(AccessPolicy.grant("orders", AccessPolicy.ANY_REGION, RegionAccess.READ,
                RegionAccess.WRITE)), c -> c.credential("orders"));
        RemoteRegion readonly = fixture.region("readonly");
        assertThat(readonly.rights()).containsExactly(RegionAccess.READ);
        RemoteRegion open = fixture.region("open");
        assertThat(open.rights()).containsExactlyInAnyOrder(RegionAccess.READ, RegionAccess.WRITE);

        var data = Unpooled.directBuffer(8).writeLong(1);
        StepVerifier.create(readonly.write(0, data)).expectErrorSatisfies(e -> assertThat(e)
                .isExactlyInstanceOf(RegionAccessDeniedException.class)
                .hasMessage("this peer holds [READ] on region 'readonly', not WRITE (the server's AccessPolicy and"
                        + " the region's access decide)"))
                .verify(Fixture.TIMEOUT);
        assertThat(data.refCnt()).isZero();
        StepVerifier.create(open.fetchAdd(0, 1)).expectError(RegionAccessDeniedException.class)
                .verify(Fixture.TIMEOUT);
        StepVerifier.create(readonly.writeRecord(0, Unpooled.buffer(1).writeByte(1)))
                .expectError(RegionAccessDeniedException.class).verify(Fixture.TIMEOUT);
        // Refused before anything was sent: the connection is fine and the memory untouched.
        assertThat(readonly.getLong(0).block(Fixture.TIMEOUT)).isZero();
        assertThat(fixture.server.region("readonly").getLong(0)).isZero();
    }

    @Test
    void theTlsPrincipalIsTheIdentityAndItsCommonNameMayNameIt() throws Exception {
        SslContext server = SslContextBuilder.forServer(serverCert.key(), serverCert.cert())
                .clientAuth(ClientAuth.REQUIRE).trustManager(ordersCert.cert(), otherCert.cert()).build();
        MemoryServer tls = regions().rdmaServer(s -> s.tcpConfiguration(t -> t.secure(spec -> spec.sslContext(server))))
                .policy(AccessPolicy.grant("orders-client", "open", RegionAccess.READ)
                        .or(AccessPolicy.grant("CN=orders-client", "open", RegionAccess.WRITE)));
        start(tls, c -> c.credential("orders-client-but-not-by-credential").rdmaClient(client(ordersCert)));
        RemoteRegion open = fixture.region("open");
        assertThat(open.rights()).containsExactlyInAnyOrder(RegionAccess.READ, RegionAccess.WRITE);
        open.putLong(8, 5).block(Fixture.TIMEOUT);
        // A Write is complete at the writer once handed to TCP (RFC 5040 §5.5), placed at the owner a little later.
        org.awaitility.Awaitility.await().atMost(Fixture.TIMEOUT)
                .until(() -> fixture.server.region("open").getLong(8) == 5);

        fixture.close();
        start(tls, c -> c.rdmaClient(client(otherCert)));
        assertRefused("open", RegionAccessDeniedException.class, "region 'open' is granted to other peers, not to"
                + " principal 'CN=someone-else'");
    }

    private static UnaryOperator<io.softrdma.reactive.RdmaClient> client(SelfSignedCertificate cert) {
        SslContext context;
        try {
            context = SslContextBuilder.forClient().trustManager(serverCert.cert()).keyManager(cert.key(), cert.cert())
                    .endpointIdentificationAlgorithm(null).build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException(e);
        }
        return c -> c.tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)));
    }

    // ---- the policy's parts, without a server ----

    @Test
    void policiesCombineByUnion() {
        PeerIdentity orders = PeerIdentity.of(null, "orders", null);
        AccessPolicy policy = AccessPolicy.grant("orders", "a", RegionAccess.READ)
                .or(AccessPolicy.grant("orders", "a", RegionAccess.WRITE))
                .or(AccessPolicy.grant("billing", AccessPolicy.ANY_REGION, RegionAccess.ATOMIC));
        assertThat(policy.decide(orders, "a").rights()).containsExactlyInAnyOrder(RegionAccess.READ,
                RegionAccess.WRITE);
        assertThat(policy.decide(orders, "b").granted()).isFalse();
        assertThat(policy.decide(orders, "b").reason()).isEqualTo("no access is granted on region 'b' to a credential");
        assertThat(policy.decide(PeerIdentity.of(null, "billing", null), "b").rights())
                .containsExactly(RegionAccess.ATOMIC);
        assertThat(AccessPolicy.denyAll().decide(PeerIdentity.anonymous(), "a").granted()).isFalse();
    }

    @Test
    void aPeerIsNamedByCredentialPrincipalOrCommonName() {
        var principal = new javax.security.auth.x500.X500Principal("CN=orders,O=Example");
        PeerIdentity peer = PeerIdentity.of(principal, "token-1", null);
        assertThat(peer.isNamed("token-1")).isTrue();
        assertThat(peer.isNamed("CN=orders,O=Example")).isTrue();
        assertThat(peer.isNamed("orders")).isTrue();
        assertThat(peer.isNamed("Example")).isFalse();
        assertThat(PeerIdentity.anonymous().isNamed("orders")).isFalse();
        assertThat(peer.describe()).isEqualTo("principal 'CN=orders,O=Example'").doesNotContain("token-1");
    }

    @Test
    void specsAndRightsAreValidated() {
        assertThatThrownBy(() -> RegionSpec.of("bad name", 64, RegionAccess.READ))
                .hasMessageContaining("must be 1 to 128 letters");
        assertThatThrownBy(() -> RegionSpec.of("r", 12, RegionAccess.READ)).hasMessageContaining("multiple of 8");
        assertThatThrownBy(() -> new RegionSpec("r", 64, Set.of())).hasMessageContaining("has no access");
        assertThat(RegionAccess.parse(" Read, atomic ")).containsExactlyInAnyOrder(RegionAccess.READ,
                RegionAccess.ATOMIC);
        assertThatThrownBy(() -> RegionAccess.parse("read,delete")).hasMessage("'delete' is not an access right: use"
                + " read, write or atomic");
        assertThatThrownBy(() -> MemoryServer.create().region("r", 8, RegionAccess.READ).region("r", 8,
                RegionAccess.READ)).hasMessage("region 'r' is declared twice");
        assertThatThrownBy(() -> AccessDecision.grant(Set.of())).hasMessageContaining("refuse(reason)");
    }
}
