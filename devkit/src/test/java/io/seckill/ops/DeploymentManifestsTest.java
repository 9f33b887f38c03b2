package io.seckill.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.config.SeckillProperties;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Kubernetes manifests of deploy/k8s parse, and every setting they give names a property that
 * exists: {@code seckill.*} in the configuration record (or a {@code @Value} of the server), anything
 * else in Spring Boot's configuration metadata. Probes point at the actuator's health groups on the
 * management port, the roles of the deployments are known and together cover every role, and every
 * secret a container reads is one the secret reference lists.
 */
class DeploymentManifestsTest {

    private static final Path K8S = repo().resolve("deploy/k8s");

    @Test
    @DisplayName("deploy/k8s parses: each document has a kind and a name; a ConfigMap, API and worker Deployments, "
            + "NetworkPolicies; no Secret is applied with them (the secret template is not a .yaml file)")
    void manifestsParse() throws IOException {
        List<Map<String, Object>> docs = documents();
        assertThat(docs).allSatisfy(d -> {
            assertThat(d).containsKeys("apiVersion", "kind", "metadata");
            assertThat(map(d, "metadata")).containsKey("name");
        });
        assertThat(docs)
                .extracting(d -> d.get("kind") + "/" + map(d, "metadata").get("name"))
                .contains(
                        "ConfigMap/seckill-config",
                        "Deployment/seckill-api",
                        "Deployment/seckill-workers",
                        "NetworkPolicy/seckill-default-deny");
        assertThat(docs).extracting(d -> d.get("kind")).doesNotContain("Secret");
        assertThat(secretTemplate()).containsEntry("kind", "Secret");
        assertThat(map(secretTemplate(), "stringData").values())
                .as("placeholders only, none long enough to pass for a secret")
                .allSatisfy(v -> assertThat(v.toString()).startsWith("<"));
    }

    @Test
    @DisplayName("every pod runs as a non-root user on a read-only root filesystem, without privilege escalation, "
            + "capabilities or a service-account token, with RuntimeDefault seccomp; the workers read no JWT secret")
    void podsAreLockedDown() throws IOException {
        for (Map<String, Object> d : documents()) {
            if (!"Deployment".equals(d.get("kind"))) {
                continue;
            }
            Map<String, Object> pod = map(map(map(d, "spec"), "template"), "spec");
            assertThat(pod).containsEntry("automountServiceAccountToken", false);
            Map<String, Object> podSecurity = map(pod, "securityContext");
            assertThat(podSecurity).containsEntry("runAsNonRoot", true);
            assertThat(map(podSecurity, "seccompProfile")).containsEntry("type", "RuntimeDefault");
            for (Map<String, Object> c : maps(pod, "containers")) {
                Map<String, Object> security = map(c, "securityContext");
                assertThat(security)
                        .containsEntry("allowPrivilegeEscalation", false)
                        .containsEntry("readOnlyRootFilesystem", true);
                assertThat(map(security, "capabilities")).containsEntry("drop", List.of("ALL"));
                assertThat(maps(c, "volumeMounts"))
                        .as("a writable /tmp")
                        .anySatisfy(m -> assertThat(m).containsEntry("mountPath", "/tmp"));
                if (!args(c).contains("--seckill.roles=api")) {
                    assertThat(maps(c, "env"))
                            .extracting(e -> String.valueOf(e.get("name")))
                            .as("a worker holds no token secret")
                            .noneMatch(n -> n.startsWith("SECKILL_JWT"));
                }
            }
        }
    }

    @Test
    @DisplayName("NetworkPolicies: every pod of the engine refuses ingress by default; buyers reach only the API pods' "
            + "buyers' port and admission entry; the management port only from the monitoring namespace; the "
            + "operator's listener only from the operators' namespaces")
    void networkPolicies() throws IOException {
        Map<String, Map<String, Object>> policies = new LinkedHashMap<>();
        for (Map<String, Object> d : documents()) {
            if ("NetworkPolicy".equals(d.get("kind"))) {
                policies.put((String) map(d, "metadata").get("name"), map(d, "spec"));
            }
        }
        Map<String, Object> deny = policies.get("seckill-default-deny");
        assertThat(map(map(deny, "podSelector"), "matchLabels")).containsEntry("app.kubernetes.io/part-of", "seckill");
        assertThat(deny).doesNotContainKey("ingress");
        Map<Integer, List<Object>> openedBy = new TreeMap<>();
        for (Map<String, Object> spec : policies.values()) {
            for (Map<String, Object> rule : maps(spec, "ingress")) {
                for (Map<String, Object> port : maps(rule, "ports")) {
                    openedBy.computeIfAbsent((Integer) port.get("port"), k -> new ArrayList<>())
                            .add(rule.get("from"));
                }
            }
        }
        assertThat(openedBy).containsOnlyKeys(8080, 8081, 8082, 8083);
        assertThat(openedBy.get(8080)).containsOnlyNulls();
        assertThat(openedBy.get(8082)).containsOnlyNulls();
        assertThat(openedBy.get(8081).toString()).contains("kubernetes.io/metadata.name=monitoring");
        assertThat(openedBy.get(8083).toString()).contains("seckill.io/operators=true");
    }

    @Test
    @DisplayName("every property the ConfigMap, the containers' env and args set exists in the configuration record or "
            + "Spring Boot's metadata")
    void propertiesExist() throws IOException {
        Set<String> seckill = seckillProperties();
        Set<String> boot = bootProperties();
        List<String> named = new ArrayList<>();
        flatten("", new Yaml().load((String) map(one("ConfigMap"), "data").get("application.yml")), named);
        for (Map<String, Object> container : containers()) {
            for (Map<String, Object> env : maps(container, "env")) {
                // the JVM's own options, read by the JVM rather than Spring
                if (!"JAVA_TOOL_OPTIONS".equals(env.get("name"))) {
                    named.add(fromEnv((String) env.get("name")));
                }
            }
            for (String a : args(container)) {
                assertThat(a).startsWith("--").contains("=");
                named.add(a.substring(2, a.indexOf('=')));
            }
        }
        assertThat(named)
                .hasSizeGreaterThan(20)
                .allSatisfy(p -> assertThat(
                                p.startsWith("seckill.")
                                        ? seckill.stream().anyMatch(known -> matches(p, known))
                                        : boot.stream().anyMatch(known -> matches(p, known)))
                        .as(p + " is a known property")
                        .isTrue());
    }

    @Test
    @DisplayName(
            "probes use the liveness and readiness groups on the management port the ConfigMap sets; the ConfigMap is "
                    + "mounted where Spring Boot reads it in the image; the roles cover every role; secrets read are the ones listed")
    void probesRolesAndSecrets() throws IOException {
        Matcher workdir =
                Pattern.compile("(?m)^WORKDIR (\\S+)$").matcher(Files.readString(repo().resolve("deploy/Dockerfile")));
        assertThat(workdir.find()).as("the image's WORKDIR").isTrue();
        Map<String, Object> config =
                new Yaml().load((String) map(one("ConfigMap"), "data").get("application.yml"));
        Object managementPort = map(map(config, "management"), "server").get("port");
        Set<String> stringData = map(secretTemplate(), "stringData").keySet();
        Set<String> roles = new TreeSet<>();
        for (Map<String, Object> c : containers()) {
            Map<String, Object> ports = new LinkedHashMap<>();
            maps(c, "ports").forEach(p -> ports.put((String) p.get("name"), p.get("containerPort")));
            assertThat(ports).containsEntry("management", managementPort);
            assertThat(maps(c, "volumeMounts"))
                    .anySatisfy(m -> assertThat(m)
                            .containsEntry("name", "config")
                            .containsEntry("mountPath", workdir.group(1) + "/config"));
            for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                Map<String, Object> get = map(map(c, probe), "httpGet");
                assertThat(get.get("port")).as(probe).isEqualTo("management");
                assertThat(get.get("path"))
                        .as(probe)
                        .isEqualTo(
                                probe.equals("readinessProbe")
                                        ? "/actuator/health/readiness"
                                        : "/actuator/health/liveness");
            }
            for (Map<String, Object> env : maps(c, "env")) {
                if (env.get("valueFrom") != null) {
                    Map<String, Object> ref = map(map(env, "valueFrom"), "secretKeyRef");
                    assertThat(ref.get("name")).isEqualTo("seckill-secrets");
                    assertThat(stringData).as(env.get("name") + "'s secret key").contains((String) ref.get("key"));
                }
            }
            for (String arg : args(c)) {
                if (arg.startsWith("--seckill.roles=")) {
                    roles.addAll(
                            List.of(arg.substring("--seckill.roles=".length()).split(",")));
                }
            }
        }
        assertThat(roles).isEqualTo(new TreeSet<>(SeckillProperties.KNOWN_ROLES));
    }

    @Test
    @DisplayName("rollouts and drains keep buyers served: a preStop pause within the grace period, a disruption budget "
            + "of one pod per Deployment, replicas spread over nodes; the JVM sees its CPU request, exits on "
            + "OutOfMemoryError and bounds direct memory; the image exposes every port a container names")
    void rolloutsKeepBuyersServed() throws IOException {
        List<Map<String, Object>> docs = documents();
        String dockerfile = Files.readString(repo().resolve("deploy/Dockerfile"));
        assertThat(dockerfile).contains("-XX:+ExitOnOutOfMemoryError");
        for (Map<String, Object> d : docs) {
            if (!"Deployment".equals(d.get("kind"))) {
                continue;
            }
            String name = (String) map(d, "metadata").get("name");
            Map<String, Object> pod = map(map(map(d, "spec"), "template"), "spec");
            int grace = (Integer) pod.get("terminationGracePeriodSeconds");
            assertThat(docs).as(name + " has a PodDisruptionBudget").anySatisfy(b -> {
                assertThat(b.get("kind")).isEqualTo("PodDisruptionBudget");
                assertThat(map(map(map(b, "spec"), "selector"), "matchLabels"))
                        .containsEntry("app.kubernetes.io/name", name);
                assertThat(map(b, "spec")).containsEntry("maxUnavailable", 1);
            });
            assertThat(maps(pod, "topologySpreadConstraints"))
                    .extracting(c -> c.get("topologyKey"))
                    .contains("kubernetes.io/hostname");
            for (Map<String, Object> c : maps(pod, "containers")) {
                List<?> sleep = (List<?>)
                        map(map(map(c, "lifecycle"), "preStop"), "exec").get("command");
                assertThat(sleep).first().isEqualTo("sleep");
                assertThat(Integer.parseInt((String) sleep.get(1))).isBetween(1, grace - 30);
                String cpu = String.valueOf(map(map(c, "resources"), "requests").get("cpu"));
                assertThat(maps(c, "env"))
                        .filteredOn(e -> "JAVA_TOOL_OPTIONS".equals(e.get("name")))
                        .singleElement()
                        .satisfies(e -> assertThat((String) e.get("value"))
                                .contains(
                                        "-XX:ActiveProcessorCount=" + cpu,
                                        "-XX:+ExitOnOutOfMemoryError",
                                        "-XX:MaxDirectMemorySize="));
                for (Map<String, Object> port : maps(c, "ports")) {
                    assertThat(dockerfile).containsPattern("(?m)^EXPOSE .*\\b" + port.get("containerPort") + "\\b");
                }
            }
        }
    }

    /** {@code known} is a property path; a {@code *} in it stands for any map key. */
    private static boolean matches(String property, String known) {
        return property.matches(Pattern.quote(known).replace("*", "\\E.+\\Q"));
    }

    /** Spring's canonical environment name (dots as underscores, dashes dropped, upper case) back to a property. */
    private static String fromEnv(String env) throws IOException {
        String lower = env.toLowerCase();
        for (String known : union(seckillProperties(), bootProperties())) {
            String canonical = known.replace("-", "").replace(".", "_");
            if (Pattern.matches(Pattern.quote(canonical).replace("*", "\\E[^_]+\\Q"), lower)) {
                return known.replace("*", lower.substring(lower.lastIndexOf('_') + 1));
            }
        }
        return "unknown:" + env;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }

    /** Every property of the configuration record (a map's keys as {@code *}), plus the server's {@code @Value}s. */
    private static Set<String> seckillProperties() throws IOException {
        Set<String> out = new TreeSet<>();
        walk("seckill", SeckillProperties.class, out);
        Pattern value = Pattern.compile("\\$\\{(seckill\\.[a-z0-9.-]+)");
        try (Stream<Path> files = Files.walk(repo().resolve("server/src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = value.matcher(Files.readString(f));
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    private static void walk(String prefix, Class<?> record, Set<String> out) {
        for (RecordComponent rc : record.getRecordComponents()) {
            String name =
                    prefix + "." + rc.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
            if (rc.getType().isRecord()) {
                walk(name, rc.getType(), out);
            } else if (Map.class.isAssignableFrom(rc.getType())) {
                out.add(name + ".*");
            } else {
                out.add(name);
            }
        }
    }

    /** Property names from every Spring Boot configuration metadata file on the class path. */
    private static Set<String> bootProperties() throws IOException {
        Set<String> out = new HashSet<>();
        JsonMapper json = JsonMapper.builder().build();
        Enumeration<URL> files = DeploymentManifestsTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
        while (files.hasMoreElements()) {
            try (InputStream in = files.nextElement().openStream()) {
                for (JsonNode p : json.readTree(in).path("properties")) {
                    String name = p.path("name").asString();
                    String type = p.path("type").asString();
                    out.add(type.startsWith("java.util.Map") ? name + ".*" : name);
                }
            }
        }
        assertThat(out).as("Spring Boot's metadata").contains("spring.datasource.url", "management.server.port");
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Object node, List<String> out) {
        if (node instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                flatten(prefix.isEmpty() ? e.getKey().toString() : prefix + "." + e.getKey(), e.getValue(), out);
            }
        } else {
            out.add(prefix);
        }
    }

    private static List<Map<String, Object>> containers() throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> d : documents()) {
            if ("Deployment".equals(d.get("kind"))) {
                out.addAll(maps(map(map(map(d, "spec"), "template"), "spec"), "containers"));
            }
        }
        assertThat(out).hasSize(2);
        return out;
    }

    /** The Secret's template: the keys the deployments read, with placeholders. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> secretTemplate() throws IOException {
        return (Map<String, Object>) new Yaml().load(Files.readString(K8S.resolve("secret.yaml.template")));
    }

    private static Map<String, Object> one(String kind) throws IOException {
        return documents().stream()
                .filter(d -> kind.equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> documents() throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(K8S)) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (Object doc : new Yaml().loadAll(Files.readString(f))) {
                    assertThat(doc).as(f + " holds a mapping").isInstanceOf(Map.class);
                    out.add((Map<String, Object>) doc);
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String key) {
        Object v = m.get(key);
        assertThat(v).as(key).isInstanceOf(Map.class);
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> maps(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? List.of() : (List<Map<String, Object>>) v;
    }

    private static List<String> args(Map<String, Object> container) {
        List<String> out = new ArrayList<>();
        for (Object a : (List<?>) container.getOrDefault("args", List.of())) {
            out.add((String) a);
        }
        return out;
    }

    /** Where the repository is, found from the working directory upwards. */
    private static Path repo() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("deploy/k8s"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "deploy/k8s not found above " + Path.of("").toAbsolutePath());
    }
}
