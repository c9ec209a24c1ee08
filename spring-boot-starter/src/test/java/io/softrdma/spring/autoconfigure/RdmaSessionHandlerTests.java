package io.softrdma.spring.autoconfigure;

import static io.softrdma.spring.autoconfigure.RdmaAutoConfigurationTests.TIMEOUT;
import static io.softrdma.spring.autoconfigure.RdmaAutoConfigurationTests.close;
import static io.softrdma.spring.autoconfigure.RdmaAutoConfigurationTests.connect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.softrdma.reactive.RdmaSession;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The server runs one RdmaSessionHandler bean: none, one, the @Primary one of several, and several without a
 * primary (the application fails to start, naming them, instead of serving sessions with no handler).
 */
class RdmaSessionHandlerTests {
    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
            .withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1");

    /** Handlers that say which of them got the session, and keep it open until the peer closes it. */
    @Configuration(proxyBeanMethods = false)
    static class Handlers {
        final CompletableFuture<String> servedBy = new CompletableFuture<>();

        RdmaSessionHandler named(String name) {
            return session -> {
                servedBy.complete(name);
                return session.onDispose();
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneHandler extends Handlers {
        @Bean
        RdmaSessionHandler only() {
            return named("only");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoHandlers extends Handlers {
        @Bean
        RdmaSessionHandler auditing() {
            return named("auditing");
        }

        @Bean
        RdmaSessionHandler echo() {
            return named("echo");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoHandlersOnePrimary extends Handlers {
        @Bean
        RdmaSessionHandler auditing() {
            return named("auditing");
        }

        @Bean
        @Primary
        RdmaSessionHandler echo() {
            return named("echo");
        }
    }

    @Test
    void withoutAHandlerSessionsStayOpenUntilThePeerClosesThem() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RdmaSessionHandler.class);
            RdmaSession session = connect(context);
            RdmaActivity.Role server = context.getBean(RdmaActivity.class).server();
            await().atMost(TIMEOUT).until(() -> server.openSessions().size() == 1);
            assertThat(session.isDisposed()).isFalse();
            close(session);
            await().atMost(TIMEOUT).until(() -> server.openSessions().isEmpty());
        });
    }

    @Test
    void oneHandlerServesEverySession() {
        runner.withUserConfiguration(OneHandler.class).run(context -> {
            RdmaSession session = connect(context);
            assertThat(context.getBean(OneHandler.class).servedBy.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo("only");
            close(session);
        });
    }

    @Test
    void twoHandlersWithoutAPrimaryFailTheStartupNamingBoth() {
        runner.withUserConfiguration(TwoHandlers.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(
                    org.springframework.beans.factory.NoUniqueBeanDefinitionException.class);
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "The SoftRDMA server runs one RdmaSessionHandler per session, but 2 beans are"
                            + " RdmaSessionHandlers and none is @Primary: auditing, echo.")
                    .hasStackTraceContaining("Combine them into one handler bean")
                    .hasStackTraceContaining("or mark the one to use @Primary");
        });
    }

    @Test
    void ofTwoHandlersThePrimaryServes() {
        runner.withUserConfiguration(TwoHandlersOnePrimary.class).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaSession session = connect(context);
            assertThat(context.getBean(TwoHandlersOnePrimary.class).servedBy.get(TIMEOUT.toSeconds(),
                    TimeUnit.SECONDS)).isEqualTo("echo");
            close(session);
        });
    }
}
