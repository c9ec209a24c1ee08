package io.softrdma.spring.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.metadata.WellKnownMimeType;
import java.util.function.Consumer;
import io.softrdma.testing.WithoutLeakTracking;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.rsocket.RSocketSecurityAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.rsocket.RSocketSecurity;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.rsocket.core.PayloadSocketAcceptorInterceptor;
import org.springframework.security.rsocket.metadata.SimpleAuthenticationEncoder;
import org.springframework.security.rsocket.metadata.UsernamePasswordMetadata;
import org.springframework.stereotype.Controller;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Spring Security's RSocket support, unchanged, over RDMA: Boot's RSocket security auto-configuration hands its
 * interceptor to the starter's RSocket server through the {@code RSocketServerCustomizer} it defines for Boot's own
 * server; simple authentication (RSocket's {@code message/x.rsocket.authentication.v0}) in a request's metadata or in
 * the SETUP; a {@code @MessageMapping} route that requires a role. Nothing in the application knows about RDMA but
 * the property that starts the server and the client transport.
 */
class RSocketSecurityOverRdmaTests {
    private static final MimeType SIMPLE_AUTH =
            MimeTypeUtils.parseMimeType(WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION.getString());

    private final ApplicationContextRunner runner = RSocketApps.serving()
            .withConfiguration(AutoConfigurations.of(RSocketSecurityAutoConfiguration.class))
            .withUserConfiguration(Vault.class, VaultSecurity.class);

    @Controller
    static class Vault {
        @MessageMapping("vault.open")
        Mono<String> open(String what) {
            return ReactiveSecurityContextHolder.getContext()
                    .map(security -> "open " + what + " for " + security.getAuthentication().getName());
        }

        @MessageMapping("lobby.enter")
        Mono<String> enter() {
            return ReactiveSecurityContextHolder.getContext()
                    .map(security -> "welcome " + security.getAuthentication().getName());
        }
    }

    /** As Spring Security's reference configures RSocket. */
    @Configuration(proxyBeanMethods = false)
    static class VaultSecurity {
        @Bean
        PayloadSocketAcceptorInterceptor rsocketInterceptor(RSocketSecurity rsocket) {
            rsocket.authorizePayload(authorize -> authorize
                            .setup().permitAll()
                            .route("vault.*").hasRole("KEEPER")
                            .anyRequest().authenticated()
                            .anyExchange().permitAll())
                    .simpleAuthentication(Customizer.withDefaults());
            return rsocket.build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(
                    User.withUsername("ada").password("{noop}lovelace").roles("KEEPER").build(),
                    User.withUsername("bob").password("{noop}builder").roles("VISITOR").build());
        }
    }

    @Test
    void theKeeperOpensTheVault() {
        runner.run(context -> {
            RSocketRequester requester = requester(context, null, null);
            try {
                StepVerifier.create(requester.route("vault.open")
                                .metadata(new UsernamePasswordMetadata("ada", "lovelace"), SIMPLE_AUTH)
                                .data("gold").retrieveMono(String.class))
                        .expectNext("open gold for ada").expectComplete().verify(RSocketApps.TIMEOUT);
            } finally {
                RSocketApps.dispose(requester);
            }
        });
    }



    @Test
    void credentialsInTheSetupAuthenticateTheConnectionOrRejectIt() {
        runner.run(context -> {
            RSocketRequester keeper = requester(context, "ada", "lovelace");
            try {
                StepVerifier.create(keeper.route("vault.open").data("silver").retrieveMono(String.class))
                        .expectNext("open silver for ada").expectComplete().verify(RSocketApps.TIMEOUT);
            } finally {
                RSocketApps.dispose(keeper);
            }
            RSocketRequester impostor = requester(context, "ada", "babbage");
            try {
                StepVerifier.create(impostor.route("lobby.enter").retrieveMono(String.class))
                        .expectErrorSatisfies(refused(RejectedSetupException.class, "Invalid Credentials"))
                        .verify(RSocketApps.TIMEOUT);
            } finally {
                RSocketApps.dispose(impostor);
            }
        });
    }

    /**
     * The refusals, with Netty's leak tracking off: Spring Security 7.1 does not release the payload of a request it
     * refuses ({@code PayloadInterceptorRSocket} drops it), over Boot's TCP transport as over this one, and the leak
     * detector would report Spring Security's leak, not ours. What this transport must and does guarantee despite
     * it — that such a payload holds no receive buffer and no credit — is {@link #refusalsDoNotUseUpTheConnection}.
     */
    @Nested
    @ExtendWith(WithoutLeakTracking.class)
    class Refusals {
        @Test
        void aWrongPasswordIsRefused() {
            runner.run(context -> {
                RSocketRequester requester = requester(context, null, null);
                try {
                    StepVerifier.create(requester.route("vault.open")
                                    .metadata(new UsernamePasswordMetadata("ada", "babbage"), SIMPLE_AUTH)
                                    .data("gold").retrieveMono(String.class))
                            .expectErrorSatisfies(refused(ApplicationErrorException.class, "Invalid Credentials"))
                            .verify(RSocketApps.TIMEOUT);
                } finally {
                    RSocketApps.dispose(requester);
                }
            });
        }

        @Test
        void aUserWithoutTheRoleIsRefusedTheVaultButNotTheLobby() {
            runner.run(context -> {
                RSocketRequester requester = requester(context, null, null);
                try {
                    StepVerifier.create(requester.route("vault.open")
                                    .metadata(new UsernamePasswordMetadata("bob", "builder"), SIMPLE_AUTH)
                                    .data("gold").retrieveMono(String.class))
                            .expectErrorSatisfies(refused(ApplicationErrorException.class, "Access Denied"))
                            .verify(RSocketApps.TIMEOUT);
                    StepVerifier.create(requester.route("lobby.enter")
                                    .metadata(new UsernamePasswordMetadata("bob", "builder"), SIMPLE_AUTH)
                                    .retrieveMono(String.class))
                            .expectNext("welcome bob").expectComplete().verify(RSocketApps.TIMEOUT);
                    // No credentials at all: every request must be authenticated.
                    StepVerifier.create(requester.route("lobby.enter").retrieveMono(String.class))
                            .expectErrorSatisfies(refused(ApplicationErrorException.class, "Access Denied"))
                            .verify(RSocketApps.TIMEOUT);
                } finally {
                    RSocketApps.dispose(requester);
                }
            });
        }

        /**
         * Refused requests do not use up the connection: Spring Security 7.1 does not release the payload of a request it
         * refuses ({@code PayloadInterceptorRSocket} never hands it on), but the transport copied the frame out of its
         * SoftRDMA receive buffer before RSocket's zero-copy decoder sliced it, so the buffer — and the peer's credit —
         * came back at once: three times as many refusals as receive buffers leave the connection as it was.
         */
        @Test
        void refusalsDoNotUseUpTheConnection() {
            runner.withPropertyValues("rdma.server.queue-pair.receive-queue-depth=8").run(context -> {
                RSocketRequester requester = requester(context, null, null);
                try {
                    for (int i = 0; i < 24; i++) {
                        StepVerifier.create(requester.route("vault.open")
                                        .metadata(new UsernamePasswordMetadata("bob", "builder"), SIMPLE_AUTH)
                                        .data("gold " + i).retrieveMono(String.class))
                                .expectErrorSatisfies(refused(ApplicationErrorException.class, "Access Denied"))
                                .verify(RSocketApps.TIMEOUT);
                    }
                    StepVerifier.create(requester.route("vault.open")
                                    .metadata(new UsernamePasswordMetadata("ada", "lovelace"), SIMPLE_AUTH)
                                    .data("gold").retrieveMono(String.class))
                            .expectNext("open gold for ada").expectComplete().verify(RSocketApps.TIMEOUT);
                } finally {
                    RSocketApps.dispose(requester);
                }
            });
        }
    }

    /**
     * What Spring Security answers (as over TCP): a request it refuses fails with an APPLICATION_ERROR (0x201) that
     * says why, and a SETUP it refuses with REJECTED_SETUP (0x003).
     */
    private static Consumer<Throwable> refused(Class<? extends RSocketErrorException> type, String why) {
        return e -> assertThat(e).isInstanceOf(type).hasMessage(why);
    }

    /** A requester with the simple authentication encoder and, if {@code user} is set, credentials in the SETUP. */
    private static RSocketRequester requester(AssertableApplicationContext context, String user, String password) {
        assertThat(context).hasNotFailed();
        RSocketRequester.Builder builder = context.getBean(RSocketRequester.Builder.class)
                .rsocketStrategies(strategies -> strategies.encoder(new SimpleAuthenticationEncoder()));
        if (user != null) {
            builder = builder.setupMetadata(new UsernamePasswordMetadata(user, password), SIMPLE_AUTH);
        }
        return builder.transport(context.getBean(RdmaRSocketTransports.class)
                .clientTransport("127.0.0.1", context.getBean(RdmaRSocketServer.class).port()));
    }
}
