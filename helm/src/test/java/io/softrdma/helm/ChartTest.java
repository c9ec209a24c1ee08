package io.softrdma.helm;

import static io.softrdma.helm.Charts.VALUES;
import static io.softrdma.helm.Charts.all;
import static io.softrdma.helm.Charts.checkPod;
import static io.softrdma.helm.Charts.noUnknownFields;
import static io.softrdma.helm.Charts.one;
import static io.softrdma.helm.Charts.testPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart, offline: {@code helm lint --strict}, then {@code helm template} with the default values and with a
 * production-like values file, the manifests read back as typed Kubernetes objects and checked — kinds, labels,
 * ports, probes, security context, config, TLS, monitoring — and values the schema must refuse.
 */
class ChartTest {
    static final Path CHART = Path.of("softrdma-remote-memory");

    /** Renders the chart as release "demo" in namespace "apps", with {@code values} if not null. */
    static List<HasMetadata> render(Path values) {
        return Charts.render(CHART, values);
    }

    @Test
    void lintStrictPasses() {
        LintResult result = new Helm(CHART).lint().strict().call();
        assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    }

    @Test
    void defaultValuesRenderTheServiceTheClientAndTheirPolicies() {
        List<HasMetadata> objects = render(null);
        objects.forEach(o -> noUnknownFields(o, o.getKind() + "/" + o.getMetadata().getName()));
        assertThat(objects).extracting(HasMetadata::getKind).containsExactlyInAnyOrder("ConfigMap", "Service",
                "Service", "Deployment", "StatefulSet", "NetworkPolicy");
        for (HasMetadata o : objects) {
            Map<String, String> labels = o.getMetadata().getLabels();
            assertThat(labels).as("labels of %s", o.getMetadata().getName())
                    .containsEntry("app.kubernetes.io/name", "softrdma-remote-memory")
                    .containsEntry("app.kubernetes.io/instance", "demo")
                    .containsEntry("app.kubernetes.io/managed-by", "Helm")
                    .containsEntry("app.kubernetes.io/version", "0.1.0-SNAPSHOT")
                    .containsEntry("helm.sh/chart", "softrdma-remote-memory-0.1.0");
        }

        StatefulSet service = one(objects, StatefulSet.class, "demo-softrdma-remote-memory-service");
        assertThat(service.getSpec().getServiceName()).isEqualTo("demo-softrdma-remote-memory-service-headless");
        assertThat(service.getSpec().getReplicas()).isEqualTo(1);
        assertThat(service.getSpec().getSelector().getMatchLabels())
                .containsEntry("app.kubernetes.io/component", "service");
        Container c = checkPod(service.getSpec().getTemplate(), "service", 8080);
        assertThat(c.getPorts()).extracting(p -> p.getName() + "=" + p.getContainerPort())
                .containsExactly("rdma=7471", "http=8080");
        assertThat(c.getImage()).isEqualTo("ghcr.io/softrdma/remote-memory:0.1.0-SNAPSHOT");
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("SPRING_PROFILES_ACTIVE")
                && e.getValue().equals("service"));

        Service clusterIp = one(objects, Service.class, "demo-softrdma-remote-memory-service");
        assertThat(clusterIp.getSpec().getType()).isEqualTo("ClusterIP");
        assertThat(clusterIp.getSpec().getPorts()).extracting(ServicePort::getName, ServicePort::getPort,
                ServicePort::getProtocol).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("rdma", 7471, "TCP"),
                        org.assertj.core.groups.Tuple.tuple("http", 8080, "TCP"));
        Service headless = one(objects, Service.class, "demo-softrdma-remote-memory-service-headless");
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(headless.getSpec().getSelector()).isEqualTo(clusterIp.getSpec().getSelector());

        Deployment client = one(objects, Deployment.class, "demo-softrdma-remote-memory-client");
        Container cc = checkPod(client.getSpec().getTemplate(), "client", 8081);
        // Both sides read the credential from the one Secret (made at install: see below): the client presents it,
        // the service grants it.
        assertThat(cc.getEnv()).anyMatch(e -> e.getName().equals("RDMA_MEMORY_CLIENT_CREDENTIAL")
                && e.getValueFrom().getSecretKeyRef().getName().equals("demo-softrdma-remote-memory-credential")
                && e.getValueFrom().getSecretKeyRef().getKey().equals("credential"));
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("REMOTE_MEMORY_CREDENTIAL")
                && e.getValueFrom().getSecretKeyRef().getName().equals("demo-softrdma-remote-memory-credential"));

        ConfigMap config = one(objects, ConfigMap.class, "demo-softrdma-remote-memory-config");
        Map<String, Object> serviceYaml = Charts.yaml(config.getData().get("service.yaml"));
        assertThat(Charts.at(serviceYaml, "rdma.memory.server.port")).isEqualTo(7471);
        assertThat(Charts.at(serviceYaml, "rdma.memory.regions.counters.size")).isEqualTo("4KB");
        assertThat(Charts.at(serviceYaml, "rdma.memory.regions.counters.access")).isEqualTo("read,write,atomic");
        assertThat(Charts.at(serviceYaml, "rdma.memory.regions.prices.access")).isEqualTo("read");
        assertThat(Charts.at(serviceYaml, "rdma.memory.cache.caches.products.size")).isEqualTo("16MB");
        assertThat(Charts.at(serviceYaml, "rdma.memory.cache.caches.products.default-ttl")).isEqualTo("10m");
        assertThat(Charts.at(serviceYaml, "rdma.server")).as("no plain RDMA server, no TLS").isNull();
        assertThat(config.getData().get("service.yaml")).contains("port: 8080", "include: readinessState,rdma",
                "timeout-per-shutdown-phase: 25s").doesNotContain("ssl");
        Map<String, Object> clientYaml = Charts.yaml(config.getData().get("client.yaml"));
        assertThat(Charts.at(clientYaml, "rdma.memory.client.service"))
                .as("the headless Service: every ready service pod")
                .isEqualTo("demo-softrdma-remote-memory-service-headless.apps.svc.cluster.local");
        assertThat(Charts.at(clientYaml, "rdma.memory.client.port")).isEqualTo(7471);
        assertThat(Charts.at(clientYaml, "rdma.memory.client.servers")).as("the image's localhost, emptied")
                .isEqualTo(List.of());

        NetworkPolicy policy = one(objects, NetworkPolicy.class, "demo-softrdma-remote-memory-service");
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/component",
                "service");
        var rdma = policy.getSpec().getIngress().get(0);
        assertThat(rdma.getPorts()).singleElement().satisfies(p -> assertThat(p.getPort().getIntVal())
                .isEqualTo(7471));
        assertThat(rdma.getFrom()).singleElement().satisfies(f -> assertThat(f.getPodSelector().getMatchLabels())
                .containsEntry("app.kubernetes.io/component", "client"));
        var http = policy.getSpec().getIngress().get(1);
        assertThat(http.getPorts()).singleElement().satisfies(p -> assertThat(p.getPort().getIntVal())
                .isEqualTo(8080));
        assertThat(http.getFrom()).as("HTTP open to every source by default").isNullOrEmpty();

    }

    @Test
    void theNotesTellHowToReachTheServiceAndTheChecks() {
        // NOTES.txt, as a client-only dry-run install renders it.
        String output = new Helm(CHART).install().withName("demo").withNamespace("apps").withKubeVersion("1.31.0")
                .dryRun().clientOnly().call().getOutput();
        String notes = output.substring(output.indexOf("NOTES:"));
        assertThat(notes).contains("demo-softrdma-remote-memory-service:7471",
                "demo-softrdma-remote-memory-service-<N>.demo-softrdma-remote-memory-service-headless.apps.svc"
                        + ".cluster.local:7471",
                "Every pod (DNS):     demo-softrdma-remote-memory-service-headless.apps.svc.cluster.local:7471",
                "the regions counters, prices and an RDMA cache of 16MB",
                "Secret demo-softrdma-remote-memory-credential, key credential",
                "kubectl port-forward -n apps demo-softrdma-remote-memory-service-0 8080",
                "only this release's client pods to the RDMA port 7471", "helm test -n apps demo");
    }

    @Test
    void theCredentialIsMadeOnceAtInstallAndKept() throws Exception {
        String template = Files.readString(CHART.resolve("templates/secret.yaml"));
        assertThat(template).contains("helm.sh/hook: pre-install", "helm.sh/resource-policy: keep");
        Secret secret = one(Charts.parse(Charts.renderHook(CHART, "templates/secret.yaml")), Secret.class,
                "demo-softrdma-remote-memory-credential");
        noUnknownFields(secret, "the credential Secret");
        assertThat(Base64.getDecoder().decode(secret.getData().get("credential"))).hasSize(32);
    }

    @Test
    void theChartTestAsksTheServicesReadinessAndRegion() throws Exception {
        Pod pod = testPod(CHART, "templates/tests/test-readiness.yaml");
        assertThat(pod.getMetadata().getName()).isEqualTo("demo-softrdma-remote-memory-test-readiness");
        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSpec().getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(String.join(" ", pod.getSpec().getContainers().get(0).getCommand()))
                .contains("http://demo-softrdma-remote-memory-service:8080/actuator/health/readiness",
                        "http://demo-softrdma-remote-memory-service:8080/regions");
    }

    @Test
    void productionValuesScaleOutSecureAndMonitor() throws Exception {
        List<HasMetadata> objects = render(VALUES.resolve("values-production.yaml"));
        objects.forEach(o -> noUnknownFields(o, o.getKind() + "/" + o.getMetadata().getName()));
        assertThat(objects).extracting(HasMetadata::getKind).contains("ServiceMonitor", "ConfigMap", "StatefulSet");

        StatefulSet service = one(objects, StatefulSet.class, "rm-service");
        assertThat(service.getSpec().getReplicas()).isEqualTo(3);
        assertThat(service.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds()).isEqualTo(60L);
        assertThat(service.getSpec().getTemplate().getSpec().getImagePullSecrets()).extracting("name")
                .containsExactly("registry-credentials");
        Container c = checkPod(service.getSpec().getTemplate(), "service", 18080);
        assertThat(c.getImage()).isEqualTo("registry.example.com/softrdma/remote-memory:1.2.3");
        assertThat(c.getImagePullPolicy()).isEqualTo("Always");
        assertThat(c.getPorts()).extracting(p -> p.getName() + "=" + p.getContainerPort())
                .containsExactly("rdma=17471", "http=18080");
        assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("3Gi");
        assertThat(c.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/etc/softrdma/tls"));
        assertThat(service.getSpec().getTemplate().getSpec().getVolumes())
                .anyMatch(v -> v.getSecret() != null && v.getSecret().getSecretName().equals("rm-tls"));

        Deployment client = one(objects, Deployment.class, "rm-client");
        assertThat(client.getSpec().getReplicas()).isEqualTo(2);
        Container cc = checkPod(client.getSpec().getTemplate(), "client", 18081);
        assertThat(objects).as("the credential is the existing Secret's").noneMatch(o -> o instanceof Secret);
        assertThat(cc.getEnv()).anyMatch(e -> e.getName().equals("RDMA_MEMORY_CLIENT_CREDENTIAL")
                && e.getValueFrom().getSecretKeyRef().getName().equals("rm-credential"));

        ConfigMap config = one(objects, ConfigMap.class, "rm-config");
        // The values' service.config merged over the chart's own settings; TLS from the mounted Secret.
        assertThat(config.getData().get("service.yaml")).contains("port: 17471", "ird: 32", "inline-size: 8KB",
                "bundle: rdma-server", "file:/etc/softrdma/tls/tls.crt", "timeout-per-shutdown-phase: 55s");
        Map<String, Object> serviceYaml = Charts.yaml(config.getData().get("service.yaml"));
        assertThat(Charts.at(serviceYaml, "rdma.memory.regions.sessions.size")).isEqualTo("8MB");
        assertThat(Charts.at(serviceYaml, "rdma.memory.regions.sessions.access")).isEqualTo("read,write");
        assertThat(Charts.at(serviceYaml, "rdma.memory.cache.caches.products.size")).isEqualTo("256MB");
        assertThat(Charts.at(serviceYaml, "rdma.server.ssl.enabled")).isEqualTo(true);
        assertThat(config.getData().get("client.yaml")).contains("bundle: rdma-client",
                "file:/etc/softrdma/tls/ca.crt", "service: rm-service-headless.apps.svc.cluster.local",
                "port: 17471");

        GenericKubernetesResource monitor = all(objects, GenericKubernetesResource.class).stream()
                .filter(o -> o.getKind().equals("ServiceMonitor")).findFirst().orElseThrow();
        assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
        assertThat(monitor.<String>get("spec", "endpoints", 0, "path")).isEqualTo("/actuator/prometheus");
        assertThat(monitor.<String>get("spec", "endpoints", 0, "interval")).isEqualTo("15s");

        ConfigMap dashboard = one(objects, ConfigMap.class, "rm-dashboard");
        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        String json = dashboard.getData().get("softrdma.json");
        assertThat(json).isEqualTo(Files.readString(CHART.resolve("dashboards/softrdma.json")).strip());
        // Every panel queries a meter the starter publishes.
        assertThat(json).contains("rdma_bytes_total", "rdma_messages_total", "rdma_operation_seconds_bucket",
                "rdma_credits_available_credits", "rdma_credits_granted_credits", "rdma_reads_outstanding_reads",
                "rdma_reads_ord_reads", "rdma_reads_inbound_queued_reads", "rdma_reads_ird_reads", "rdma_connections",
                "rdma_terminates_messages_total", "rdma_startup_failures_connections_total");

        NetworkPolicy policy = one(objects, NetworkPolicy.class, "rm-service");
        assertThat(policy.getSpec().getIngress().get(0).getPorts().get(0).getPort().getIntVal()).isEqualTo(17471);
        assertThat(policy.getSpec().getIngress().get(1).getFrom()).hasSize(2)
                .anyMatch(f -> f.getNamespaceSelector() != null && "monitoring".equals(
                        f.getNamespaceSelector().getMatchLabels().get("kubernetes.io/metadata.name")));
    }

    @Test
    void theSchemaRefusesUnknownKeysAndWrongTypes() {
        assertThatThrownBy(() -> render(VALUES.resolve("values-bad.yaml")))
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining("replicaCount")
                .hasMessageContaining("rdma");
    }

    @Test
    void theSchemaRefusesARightRdmaDoesNotHave() {
        assertThatThrownBy(() -> render(VALUES.resolve("values-bad-region.yaml")))
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining("/service/regions/counters/access/1").hasMessageContaining("atomic");
    }

    @Test
    void tlsWithoutASecretIsRefused() {
        assertThatThrownBy(() -> render(VALUES.resolve("values-tls-without-secret.yaml")))
                .hasMessageContaining("secretName");
    }

    @Test
    void theImageRunsAsTheUserTheChartRequires() throws Exception {
        String dockerfile = Files.readString(Path.of("../samples/remote-memory/Dockerfile"));
        String values = Files.readString(CHART.resolve("values.yaml"));
        assertThat(values).contains("runAsUser: 10001", "rdma: 7471", "http: 8080");
        assertThat(dockerfile).contains("USER 10001:10001", "--uid 10001", "EXPOSE 7471 8080",
                "COPY target/remote-memory.jar");
        assertThat(dockerfile.lines().filter(l -> l.startsWith("FROM ")).toList()).last().asString()
                .as("a JRE runtime image").contains("eclipse-temurin:17-jre");
    }
}
