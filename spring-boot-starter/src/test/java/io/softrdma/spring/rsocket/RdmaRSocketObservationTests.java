package io.softrdma.spring.rsocket;

import static io.softrdma.spring.rsocket.RSocketApps.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleSpanBuilder;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.rsocket.micrometer.observation.RSocketContext;
import io.softrdma.spring.rsocket.RSocketApps.Greeting;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.rsocket.RSocketConnectorConfigurer;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * Micrometer Observation on both ends of RSocket over RDMA, with RSocket's observation proxies, and the trace
 * context carried in the requests' metadata.
 */
class RdmaRSocketObservationTests {

    private static ApplicationContextRunner observed(ObservationRegistry registry) {
        return RSocketApps.serving().withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
                .withBean(ObservationRegistry.class, () -> registry);
    }

    @Test
    void eachRequestIsObservedOnTheRequesterAndOnTheResponder() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        observed(registry).run(context -> {
            RSocketRequester requester = RSocketApps.requester(context);
            try {
                requester.route("greet").data(new Greeting("observed")).retrieveMono(Greeting.class).block(TIMEOUT);
                requester.route("note").data(new Greeting("noted")).send().block(TIMEOUT);
                StepVerifier.create(requester.route("count").data(new Greeting("n")).retrieveFlux(Greeting.class))
                        .expectNextCount(100).verifyComplete();
                StepVerifier.create(requester.route("shout").data(Flux.just(new Greeting("a")))
                        .retrieveFlux(Greeting.class)).expectNext(new Greeting("A")).verifyComplete();
                // The responder's observation stops once its answer is sent, perhaps after the requester's.
                await().atMost(TIMEOUT).untilAsserted(() -> {
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo("rsocket.request").that().hasBeenStopped()
                            .hasLowCardinalityKeyValue("rsocket.route", "greet")
                            .hasLowCardinalityKeyValue("rsocket.request-type", "REQUEST_RESPONSE");
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo("rsocket.response").that().hasBeenStopped()
                            .hasLowCardinalityKeyValue("rsocket.route", "greet")
                            .hasLowCardinalityKeyValue("rsocket.request-type", "REQUEST_RESPONSE");
                    TestObservationRegistryAssert.assertThat(registry).hasHandledContextsThatSatisfy(contexts ->
                            assertThat(sides(contexts)).contains(
                                    "REQUESTER REQUEST_RESPONSE greet", "RESPONDER REQUEST_RESPONSE greet",
                                    "REQUESTER REQUEST_FNF note", "RESPONDER REQUEST_FNF note",
                                    "REQUESTER REQUEST_STREAM count", "RESPONDER REQUEST_STREAM count",
                                    "REQUESTER REQUEST_CHANNEL shout", "RESPONDER REQUEST_CHANNEL shout"));
                });
            } finally {
                RSocketApps.dispose(requester);
            }
        });
    }

    /** The RSocket observations: side, frame type and route. */
    private static List<String> sides(List<Observation.Context> contexts) {
        return contexts.stream().filter(RSocketContext.class::isInstance).map(RSocketContext.class::cast)
                .map(c -> c.getSide() + " " + c.getFrameType() + " " + c.getRoute()).toList();
    }

    @Test
    void theTraceContextTravelsInTheMetadata() {
        // SimpleTracer gives a span ids only under a parent: here every new trace has one.
        SimpleTracer tracer = new SimpleTracer() {
            @Override
            public SimpleSpanBuilder spanBuilder() {
                SimpleSpanBuilder builder = super.spanBuilder();
                builder.setParent(traceContextBuilder().traceId(java.util.UUID.randomUUID().toString())
                        .spanId("root").sampled(true).build());
                return builder;
            }
        };
        observed(ObservationRegistry.create()).withBean(Tracer.class, () -> tracer)
                .withBean(Propagator.class, () -> new OneFieldPropagator(tracer)).run(context -> {
                    RSocketRequester requester = RSocketApps.requester(context);
                    try {
                        requester.route("greet").data(new Greeting("traced")).retrieveMono(Greeting.class)
                                .block(TIMEOUT);
                        await().atMost(TIMEOUT).until(() -> spans(tracer, Span.Kind.CONSUMER).size() == 1);
                        SimpleSpan sent = spans(tracer, Span.Kind.PRODUCER).get(0);
                        SimpleSpan answered = spans(tracer, Span.Kind.CONSUMER).get(0);
                        // The responder's span continues the requester's: its parent came in the metadata.
                        assertThat(answered.getParentId()).isEqualTo(sent.getSpanId()).isNotBlank();
                        assertThat(answered.getTraceId()).isEqualTo(sent.getTraceId()).isNotBlank();
                        assertThat(answered.getName()).isEqualTo("REQUEST_RESPONSE greet");
                    } finally {
                        RSocketApps.dispose(requester);
                    }
                });
    }

    private static List<SimpleSpan> spans(SimpleTracer tracer, Span.Kind kind) {
        return tracer.getSpans().stream().filter(s -> s.getKind() == kind).toList();
    }

    /** Carries trace and span id in one metadata entry, {@code x-test-trace}. */
    static final class OneFieldPropagator implements Propagator {
        private static final String FIELD = "x-test-trace";
        private final Tracer tracer;

        OneFieldPropagator(Tracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public List<String> fields() {
            return List.of(FIELD);
        }

        @Override
        public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
            setter.set(carrier, FIELD, context.traceId() + "/" + context.spanId());
        }

        @Override
        public <C> Span.Builder extract(C carrier, Getter<C> getter) {
            String value = getter.get(carrier, FIELD);
            if (value == null) {
                return tracer.spanBuilder();
            }
            String[] ids = value.split("/", -1);
            return tracer.spanBuilder().setParent(tracer.traceContextBuilder().traceId(ids[0]).spanId(ids[1])
                    .sampled(true).build());
        }
    }

    @Test
    void withoutARegistryOrWhenDisabledNothingIsObserved() {
        RSocketApps.serving().run(context -> assertThat(context).doesNotHaveBean("rdmaRSocketServerObservation")
                .doesNotHaveBean("rdmaRSocketRequesterObservation"));
        observed(TestObservationRegistry.create()).withPropertyValues("rdma.rsocket.observation.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("rdmaRSocketServerObservation")
                        .doesNotHaveBean("rdmaRSocketRequesterObservation"));
        observed(TestObservationRegistry.create()).run(context -> {
            assertThat(context).getBean("rdmaRSocketServerObservation").isInstanceOf(RSocketServerCustomizer.class);
            assertThat(context).getBean("rdmaRSocketRequesterObservation")
                    .isInstanceOf(RSocketConnectorConfigurer.class);
        });
    }
}
