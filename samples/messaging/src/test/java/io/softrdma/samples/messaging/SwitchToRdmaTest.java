package io.softrdma.samples.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.spring.rsocket.RdmaRSocketTransports;
import io.softrdma.testing.Snippets;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.rsocket.RSocketRequester;

/**
 * The README's "five lines": an RSocket client written as for TCP, switched to RDMA by the starter's
 * {@link RdmaRSocketTransports}, calls the sample's server; and every example of the README is what the sources
 * hold — its Java blocks are regions of this module's tests, word for word, its XML and YAML lines are in the pom
 * and in application.yaml.
 */
class SwitchToRdmaTest {
    private static final Path README = Path.of("README.md");

    /** An existing RSocket client application, as it would be over TCP but for one line. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OrdersClientApplication {
        // tag::messaging-switch-client[]
        @Bean
        RSocketRequester orders(RSocketRequester.Builder builder, RdmaRSocketTransports rdma,
                @Value("${orders.host}") String host, @Value("${orders.port}") int port) {
            return builder.transport(rdma.clientTransport(host, port));    // was: builder.tcp(host, port)
        }
        // end::messaging-switch-client[]
    }

    @Test
    void aClientSwitchedByOneLineCallsTheServerOverRdma() {
        try (ConfigurableApplicationContext server = new SpringApplicationBuilder(MessagingApplication.class)
                .profiles("server").run("--server.port=0", "--rdma.rsocket.server.port=0",
                        "--rdma.rsocket.server.address=127.0.0.1")) {
            int port = server.getEnvironment().getRequiredProperty("local.rdma.rsocket.server.port", Integer.class);
            // Its own profile: the sample's application.yaml (on this class path) starts a server by default.
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrdersClientApplication.class)
                    .profiles("orders-client").web(WebApplicationType.NONE).run("--orders.host=127.0.0.1", "--orders.port=" + port)) {
                RSocketRequester orders = app.getBean(RSocketRequester.class);
                // The same call as over TCP, in JSON: Boot's strategies have Jackson, whose type is the default.
                Order order = orders.route("orders.get").data(new OrderRequest("1001")).retrieveMono(Order.class)
                        .block(Duration.ofSeconds(10));
                assertThat(order).isEqualTo(new Order("1001", "registered memory, 1 MiB", 2, new BigDecimal("12.50")));
                // The bean has no destroy method (nor has its TCP original): close the connection before the server.
                orders.dispose();
            }
        }
    }

    @Test
    void theReadmesJavaExamplesAreRegionsOfTheseTests() {
        var regions = Snippets.regions(List.of(Path.of("src/test/java")));
        assertThat(Snippets.markdownExamples(README)).as("Java examples in the README").isNotEmpty();
        assertThat(Snippets.undocumented(List.of(README), regions))
                .as("README examples that no // tag:: region of this module's tests holds word for word").isEmpty();
    }

    @Test
    void theReadmesDependencyAndPropertyAreThoseTheSampleUses() throws Exception {
        String readme = Files.readString(README);
        String pom = Files.readString(Path.of("pom.xml"));
        String application = Files.readString(Path.of("src/main/resources/application.yaml"));
        List<String> xml = blocks(readme, "xml");
        List<String> yaml = blocks(readme, "yaml");
        assertThat(xml).as("```xml blocks").isNotEmpty();
        assertThat(yaml).as("```yaml blocks").isNotEmpty();
        for (String block : xml) {
            assertThat(pom).as("pom.xml").contains(significantLines(block));
        }
        for (String block : yaml) {
            assertThat(application).as("application.yaml").contains(significantLines(block));
        }
    }

    /** The fenced blocks of one language. */
    private static List<String> blocks(String markdown, String language) {
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        List<String> found = new java.util.ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** A block's lines without comments, trimmed, each of which the source must contain. */
    private static String[] significantLines(String block) {
        return block.lines().map(l -> l.replaceAll("\\s+#.*$", "").replaceAll("<!--.*?-->", "").strip())
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toArray(String[]::new);
    }
}
