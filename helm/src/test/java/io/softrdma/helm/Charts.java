package io.softrdma.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What the chart tests share: rendering a chart offline ({@code helm template}) into typed Kubernetes objects,
 * finding objects by kind and name, refusing fields Kubernetes does not know, rendering the {@code helm test} pod,
 * and the checks every pod template of the charts must pass.
 *
 * <p>Thread safety: stateless; each call renders on its own.
 */
final class Charts {
    static final Path VALUES = Path.of("src/test/resources");
    static final KubernetesSerialization YAML = new KubernetesSerialization();

    private Charts() {
    }

    /** Renders {@code chart} as release "demo" in namespace "apps", with {@code values} if not null. */
    static List<HasMetadata> render(Path chart, Path values) {
        var template = new Helm(chart).template().withName("demo").withNamespace("apps").withKubeVersion("1.31.0");
        if (values != null) {
            template = template.withValuesFile(values);
        }
        return parse(template.call());
    }

    /** The objects of a multi-document manifest. */
    static List<HasMetadata> parse(String manifests) {
        List<HasMetadata> objects = new ArrayList<>();
        for (String doc : manifests.split("(?m)^---\\s*$")) {
            if (doc.lines().anyMatch(l -> l.startsWith("kind:"))) {
                HasMetadata o = YAML.unmarshal(doc);
                objects.add(o);
            }
        }
        return objects;
    }

    /** A YAML document (a ConfigMap's application.yaml) as nested maps. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(String document) {
        return YAML.unmarshal(document, Map.class);
    }

    /** The value at a dotted path of nested maps ({@code "rdma.rsocket.server.port"}), or null. */
    @SuppressWarnings("unchecked")
    static Object at(Map<String, Object> map, String path) {
        Object node = map;
        for (String key : path.split("\\.")) {
            if (!(node instanceof Map<?, ?> m)) {
                return null;
            }
            node = ((Map<String, Object>) m).get(key);
        }
        return node;
    }

    static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type, String name) {
        return all(objects, type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " in "
                        + objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList()));
    }

    /** Every field of every object is one Kubernetes knows: fabric8 keeps unknown ones aside instead of failing. */
    static void noUnknownFields(Object o, String where) {
        if (o instanceof io.fabric8.kubernetes.api.model.KubernetesResource && !(o instanceof GenericKubernetesResource)) {
            try {
                var m = o.getClass().getMethod("getAdditionalProperties");
                @SuppressWarnings("unchecked")
                Map<String, Object> extra = (Map<String, Object>) m.invoke(o);
                assertThat(extra).as("unknown fields in %s", where).isEmpty();
            } catch (NoSuchMethodException e) {
                return;
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            for (var getter : o.getClass().getMethods()) {
                if (getter.getParameterCount() == 0 && getter.getName().startsWith("get")
                        && !getter.getName().equals("getAdditionalProperties") && !getter.getName().equals("getClass")) {
                    try {
                        Object v = getter.invoke(o);
                        if (v instanceof List<?> l) {
                            for (Object e : l) {
                                noUnknownFields(e, where + "." + getter.getName());
                            }
                        } else {
                            noUnknownFields(v, where + "." + getter.getName());
                        }
                    } catch (ReflectiveOperationException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
    }

    /**
     * The chart's {@code helm test} pod: {@code helm template} leaves hooks out (and there is no cluster for
     * {@code helm test}), so this renders a copy of the chart whose test pod at {@code testTemplate} is not a hook.
     * The original must carry the test hook.
     */
    static Pod testPod(Path chart, String testTemplate) throws IOException {
        assertThat(Files.readString(chart.resolve(testTemplate))).contains("helm.sh/hook: test");
        Pod pod = null;
        for (String doc : renderHook(chart, testTemplate).split("(?m)^---\\s*$")) {
            if (doc.contains("kind: Pod")) {
                pod = YAML.unmarshal(doc, Pod.class);
            }
        }
        assertThat(pod).as("the test pod").isNotNull();
        noUnknownFields(pod, "test pod");
        return pod;
    }

    /**
     * The chart's manifests with the hook {@code hookTemplate} among them: {@code helm template} leaves hooks out, so
     * the template is rendered from a copy of the chart without its {@code helm.sh/hook} annotations.
     */
    static String renderHook(Path chart, String hookTemplate) throws IOException {
        String template = Files.readString(chart.resolve(hookTemplate));
        assertThat(template).contains("helm.sh/hook");
        Path copy = Files.createTempDirectory("chart");
        try {
            copyTree(chart, copy);
            Files.writeString(copy.resolve(hookTemplate), template.lines().filter(l -> !l.contains("helm.sh/hook"))
                    .reduce("", (x, y) -> x + y + "\n"));
            return new Helm(copy).template().withName("demo").withNamespace("apps").withKubeVersion("1.31.0").call();
        } finally {
            try (var walk = Files.walk(copy)) {
                walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /** The pod template's probes, security, scrape annotations and volumes; returns its one container. */
    static Container checkPod(PodTemplateSpec template, String component, int httpPort) {
        assertThat(template.getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", component);
        assertThat(template.getMetadata().getAnnotations()).containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/port", Integer.toString(httpPort))
                .containsEntry("prometheus.io/path", "/actuator/prometheus").containsKey("checksum/config");
        PodSpec spec = template.getSpec();
        assertThat(spec.getAutomountServiceAccountToken()).isFalse();
        assertThat(spec.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(spec.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
        assertThat(spec.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(spec.getContainers()).hasSize(1);
        Container c = spec.getContainers().get(0);
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
        assertThat(c.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
        assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits()).containsKeys("cpu", "memory");
        // A read-only root needs a writable /tmp, and the configuration comes from the ConfigMap.
        assertThat(c.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/tmp"))
                .anyMatch(m -> m.getMountPath().equals("/config") && Boolean.TRUE.equals(m.getReadOnly()));
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("SPRING_CONFIG_ADDITIONAL_LOCATION")
                && e.getValue().equals("file:/config/" + component + ".yaml"));
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("SPRING_PROFILES_ACTIVE")
                && e.getValue().equals(component));
        return c;
    }
}
