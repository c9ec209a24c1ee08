package io.softrdma.helm;

import static io.softrdma.helm.Charts.VALUES;
import static io.softrdma.helm.Charts.at;
import static io.softrdma.helm.Charts.checkPod;
import static io.softrdma.helm.Charts.noUnknownFields;
import static io.softrdma.helm.Charts.one;
import static io.softrdma.helm.Charts.testPod;
import static io.softrdma.helm.Charts.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The messaging chart (samples/messaging: RSocket over RDMA), offline: {@code helm lint --strict}, then
 * {@code helm template} with the default values and with other values files, read back as typed Kubernetes objects:
 * N interchangeable server pods behind a headless Service whose name the client load-balances across, the client,
 * and a NetworkPolicy that admits to the RSocket port any pod carrying the user's client label — of this release or
 * not, in this namespace or in the namespaces the user picks; and the values the schema must refuse.
 */
class MessagingChartTest {
    static final Path CHART = Path.of("softrdma-messaging");
    private static final String SERVER = "demo-softrdma-messaging-server";
    private static final String SERVER_HOST = SERVER + ".apps.svc.cluster.local";

    @Test
    void lintStrictPasses() {
        LintResult result = new Helm(CHART).lint().strict().call();
        assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    }

    @Test
    void defaultValuesRenderServersBehindAHeadlessServiceAndALoadBalancingClient() {
        List<HasMetadata> objects = Charts.render(CHART, null);
        objects.forEach(o -> noUnknownFields(o, o.getKind() + "/" + o.getMetadata().getName()));
        assertThat(objects).extracting(HasMetadata::getKind).containsExactlyInAnyOrder("ConfigMap", "Service",
                "Deployment", "Deployment", "NetworkPolicy");
        for (HasMetadata o : objects) {
            assertThat(o.getMetadata().getLabels()).as("labels of %s", o.getMetadata().getName())
                    .containsEntry("app.kubernetes.io/name", "softrdma-messaging")
                    .containsEntry("app.kubernetes.io/instance", "demo")
                    .containsEntry("app.kubernetes.io/managed-by", "Helm")
                    .containsEntry("app.kubernetes.io/version", "0.1.0-SNAPSHOT")
                    .containsEntry("helm.sh/chart", "softrdma-messaging-0.1.0");
        }

        Deployment server = one(objects, Deployment.class, SERVER);
        assertThat(server.getSpec().getReplicas()).isEqualTo(3);
        Map<String, String> serverSelector = server.getSpec().getSelector().getMatchLabels();
        assertThat(serverSelector).containsExactlyInAnyOrderEntriesOf(Map.of("app.kubernetes.io/name",
                "softrdma-messaging", "app.kubernetes.io/instance", "demo", "app.kubernetes.io/component", "server"));
        assertThat(server.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(serverSelector)
                .doesNotContainKey("softrdma.io/client");
        Container c = checkPod(server.getSpec().getTemplate(), "server", 8090);
        assertThat(c.getImage()).isEqualTo("ghcr.io/softrdma/messaging:0.1.0-SNAPSHOT");
        assertThat(c.getPorts()).extracting(p -> p.getName() + "=" + p.getContainerPort() + "/" + p.getProtocol())
                .containsExactly("rsocket=7472/TCP", "http=8090/TCP");

        // The one Service is headless: its name resolves to every ready server pod, which the client balances across.
        Service headless = one(objects, Service.class, SERVER);
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(headless.getSpec().getPublishNotReadyAddresses()).isFalse();
        assertThat(headless.getSpec().getSelector()).isEqualTo(serverSelector);
        assertThat(headless.getSpec().getPorts()).extracting(ServicePort::getName, ServicePort::getPort,
                p -> p.getTargetPort().getStrVal(), ServicePort::getProtocol).containsExactly(
                        tuple("rsocket", 7472, "rsocket", "TCP"), tuple("http", 8090, "http", "TCP"));

        Deployment client = one(objects, Deployment.class, "demo-softrdma-messaging-client");
        assertThat(client.getSpec().getReplicas()).isEqualTo(1);
        checkPod(client.getSpec().getTemplate(), "client", 8091);
        assertThat(client.getSpec().getTemplate().getMetadata().getLabels())
                .as("this release's client carries the label the policy admits").containsEntry("softrdma.io/client", "true");
        assertThat(client.getSpec().getSelector().getMatchLabels()).doesNotContainKey("softrdma.io/client");

        ConfigMap config = one(objects, ConfigMap.class, "demo-softrdma-messaging-config");
        Map<String, Object> serverYaml = yaml(config.getData().get("server.yaml"));
        assertThat(at(serverYaml, "rdma.rsocket.server.port")).as("the one property that starts RSocket over RDMA")
                .isEqualTo(7472);
        assertThat(at(serverYaml, "rdma.server")).as("no raw SoftRDMA server beside it").isNull();
        assertThat(at(serverYaml, "server.port")).isEqualTo(8090);
        assertThat(at(serverYaml, "management.endpoint.health.group.readiness.include")).isEqualTo("readinessState,rdma");
        assertThat(at(serverYaml, "spring.lifecycle.timeout-per-shutdown-phase")).isEqualTo("25s");
        Map<String, Object> clientYaml = yaml(config.getData().get("client.yaml"));
        assertThat(at(clientYaml, "messaging.client.host")).as("the headless Service's name").isEqualTo(SERVER_HOST);
        assertThat(at(clientYaml, "messaging.client.port")).isEqualTo(7472);
        assertThat(at(clientYaml, "messaging.client.load-balanced")).isEqualTo(true);
        assertThat(at(clientYaml, "messaging.client.consume-delay")).isEqualTo("5ms");
        assertThat(at(clientYaml, "messaging.client.request-window")).isEqualTo(16);
        assertThat(at(clientYaml, "rdma.rsocket.client.refresh-interval")).isEqualTo("10s");
        assertThat(at(clientYaml, "server.port")).isEqualTo(8091);

        NetworkPolicy policy = one(objects, NetworkPolicy.class, SERVER);
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(serverSelector);
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        NetworkPolicyIngressRule rsocket = policy.getSpec().getIngress().get(0);
        assertThat(rsocket.getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getPort().getIntVal()).isEqualTo(7472);
            assertThat(p.getProtocol()).isEqualTo("TCP");
        });
        NetworkPolicyPeer from = rsocket.getFrom().get(0);
        assertThat(rsocket.getFrom()).hasSize(1);
        assertThat(from.getPodSelector().getMatchLabels()).as("any pod with the label, not only this release's")
                .isEqualTo(Map.of("softrdma.io/client", "true"));
        assertThat(from.getNamespaceSelector()).as("by default, in the release's namespace only").isNull();
        assertThat(from.getIpBlock()).isNull();
        NetworkPolicyIngressRule http = policy.getSpec().getIngress().get(1);
        assertThat(http.getPorts()).singleElement().satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(8090));
        assertThat(http.getFrom()).as("HTTP open to every source by default").isNullOrEmpty();
        assertThat(policy.getSpec().getIngress()).hasSize(2);
    }

    @Test
    void productionValuesScaleOutAndAdmitTheTeamsLabelledClientsFromItsNamespaces() {
        List<HasMetadata> objects = Charts.render(CHART, VALUES.resolve("messaging-production.yaml"));
        objects.forEach(o -> noUnknownFields(o, o.getKind() + "/" + o.getMetadata().getName()));

        Deployment server = one(objects, Deployment.class, "orders-server");
        assertThat(server.getSpec().getReplicas()).isEqualTo(5);
        assertThat(server.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds()).isEqualTo(60L);
        assertThat(server.getSpec().getTemplate().getSpec().getImagePullSecrets()).extracting("name")
                .containsExactly("registry-credentials");
        Container c = checkPod(server.getSpec().getTemplate(), "server", 18090);
        assertThat(c.getImage()).isEqualTo("registry.example.com/shop/messaging:2.0.1");
        assertThat(c.getImagePullPolicy()).isEqualTo("Always");
        assertThat(c.getPorts()).extracting(p -> p.getName() + "=" + p.getContainerPort())
                .containsExactly("rsocket=17472", "http=18090");
        assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("2Gi");

        Service headless = one(objects, Service.class, "orders-server");
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(headless.getSpec().getPorts()).extracting(ServicePort::getName, ServicePort::getPort)
                .containsExactly(tuple("rsocket", 17472), tuple("http", 18090));

        Deployment client = one(objects, Deployment.class, "orders-client");
        assertThat(client.getSpec().getReplicas()).isEqualTo(2);
        checkPod(client.getSpec().getTemplate(), "client", 18091);
        assertThat(client.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("shop.example.com/orders-client", "yes").doesNotContainKey("softrdma.io/client");

        ConfigMap config = one(objects, ConfigMap.class, "orders-config");
        Map<String, Object> serverYaml = yaml(config.getData().get("server.yaml"));
        assertThat(at(serverYaml, "rdma.rsocket.server.port")).isEqualTo(17472);
        assertThat(at(serverYaml, "rdma.server.messaging.inline-size")).as("server.config merged over the chart's")
                .isEqualTo("8KB");
        assertThat(at(serverYaml, "spring.lifecycle.timeout-per-shutdown-phase")).isEqualTo("55s");
        Map<String, Object> clientYaml = yaml(config.getData().get("client.yaml"));
        assertThat(at(clientYaml, "messaging.client.host")).isEqualTo("orders-server.apps.svc.cluster.local");
        assertThat(at(clientYaml, "messaging.client.port")).isEqualTo(17472);
        assertThat(at(clientYaml, "messaging.client.consume-delay")).isEqualTo("20ms");
        assertThat(at(clientYaml, "messaging.client.request-window")).isEqualTo(64);
        assertThat(at(clientYaml, "rdma.rsocket.client.refresh-interval")).isEqualTo("30s");

        NetworkPolicy policy = one(objects, NetworkPolicy.class, "orders-server");
        NetworkPolicyIngressRule rsocket = policy.getSpec().getIngress().get(0);
        assertThat(rsocket.getPorts().get(0).getPort().getIntVal()).isEqualTo(17472);
        assertThat(rsocket.getFrom()).singleElement().satisfies(from -> {
            // One peer with both selectors: a pod must carry the label AND run in a selected namespace.
            assertThat(from.getPodSelector().getMatchLabels())
                    .isEqualTo(Map.of("shop.example.com/orders-client", "yes"));
            assertThat(from.getNamespaceSelector().getMatchLabels())
                    .isEqualTo(Map.of("shop.example.com/tier", "backend"));
        });
        NetworkPolicyIngressRule http = policy.getSpec().getIngress().get(1);
        assertThat(http.getPorts().get(0).getPort().getIntVal()).isEqualTo(18090);
        assertThat(http.getFrom()).singleElement().satisfies(from -> {
            assertThat(from.getNamespaceSelector().getMatchLabels())
                    .isEqualTo(Map.of("kubernetes.io/metadata.name", "monitoring"));
            assertThat(from.getPodSelector()).isNull();
        });
    }

    @Test
    void anEmptyNamespaceSelectorAdmitsLabelledClientsFromEveryNamespace() {
        List<HasMetadata> objects = Charts.render(CHART, VALUES.resolve("messaging-any-namespace.yaml"));
        objects.forEach(o -> noUnknownFields(o, o.getKind() + "/" + o.getMetadata().getName()));
        assertThat(objects).extracting(HasMetadata::getKind).as("client.enabled=false: no client Deployment")
                .containsExactlyInAnyOrder("ConfigMap", "Service", "Deployment", "NetworkPolicy");
        NetworkPolicy policy = one(objects, NetworkPolicy.class, SERVER);
        assertThat(policy.getSpec().getIngress().get(0).getFrom()).singleElement().satisfies(from -> {
            assertThat(from.getPodSelector().getMatchLabels()).isEqualTo(Map.of("softrdma.io/client", "true"));
            // {} and not absent: Kubernetes reads an empty namespace selector as "every namespace".
            assertThat(from.getNamespaceSelector()).isNotNull();
            assertThat(from.getNamespaceSelector().getMatchLabels()).isNullOrEmpty();
            assertThat(from.getNamespaceSelector().getMatchExpressions()).isNullOrEmpty();
        });
        String output = new Helm(CHART).install().withName("demo").withNamespace("apps").withKubeVersion("1.31.0")
                .withValuesFile(VALUES.resolve("messaging-any-namespace.yaml")).dryRun().clientOnly().call()
                .getOutput();
        assertThat(output.substring(output.indexOf("NOTES:")))
                .contains("any pod labelled softrdma.io/client=true in any namespace")
                .doesNotContain("The sample client");
    }

    @Test
    void theSchemaRefusesAClientSelectorWithoutLabelsWrongTypesAndUnknownKeys() {
        assertThatThrownBy(() -> Charts.render(CHART, VALUES.resolve("messaging-bad.yaml")))
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining("clientSelector")
                .hasMessageContaining("rsocket")
                .hasMessageContaining("replicaCount");
    }

    @Test
    void theNotesTellHowClientsReachAndAreAdmitted() {
        String output = new Helm(CHART).install().withName("demo").withNamespace("apps").withKubeVersion("1.31.0")
                .dryRun().clientOnly().call().getOutput();
        String notes = output.substring(output.indexOf("NOTES:"));
        assertThat(notes).contains("Server pods (3)", SERVER_HOST + ":7472",
                "rdma.loadBalanced(builder, \"" + SERVER_HOST + "\", 7472)",
                "kubectl port-forward -n apps deploy/" + SERVER + " 8090",
                "any pod labelled softrdma.io/client=true in namespace apps",
                "kubectl label pod <pod> softrdma.io/client=true", "helm test -n apps demo");
    }

    @Test
    void theChartTestAsksAServerPodsReadiness() throws Exception {
        Pod pod = testPod(CHART, "templates/tests/test-readiness.yaml");
        assertThat(pod.getMetadata().getName()).isEqualTo("demo-softrdma-messaging-test-readiness");
        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSpec().getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(String.join(" ", pod.getSpec().getContainers().get(0).getCommand()))
                .contains("http://" + SERVER_HOST + ":8090/actuator/health/readiness");
    }

    @Test
    void theImageRunsAsTheUserTheChartRequiresOnItsPorts() throws Exception {
        String dockerfile = Files.readString(Path.of("../samples/messaging/Dockerfile"));
        String values = Files.readString(CHART.resolve("values.yaml"));
        assertThat(values).contains("runAsUser: 10001", "rsocket: 7472", "http: 8090", "http: 8091");
        assertThat(dockerfile).contains("USER 10001:10001", "--uid 10001", "EXPOSE 7472 8090 8091",
                "COPY target/messaging.jar");
        assertThat(dockerfile.lines().filter(l -> l.startsWith("FROM ")).toList()).last().asString()
                .as("a JRE runtime image").contains("eclipse-temurin:17-jre");
        // The sample's own defaults agree with the chart's.
        String application = Files.readString(Path.of("../samples/messaging/src/main/resources/application.yaml"));
        assertThat(application).contains("port: 7472", "port: 8090", "port: 8091");
    }
}
