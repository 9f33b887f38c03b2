package io.seckill.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.config.SeckillProperties;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.ConcurrentHashMap;
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

    private static final Map<String, List<Map<String, Object>>> RENDERED = new ConcurrentHashMap<>();

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
            if (!"Deployment".equals(d.get("kind")) && !"Job".equals(d.get("kind"))) {
                continue;
            }
            Map<String, Object> pod = podSpec(d);
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

    @Test
    @DisplayName("each rendering (app, migrations Job, backing services) names every object once")
    void renderedObjectsAreUnique() throws IOException {
        for (String folder : List.of("overlays/example/app", "overlays/example/migrate", "backing")) {
            assertThat(rendered(folder))
                    .extracting(d -> d.get("kind") + "/" + map(d, "metadata").get("name"))
                    .as(folder)
                    .doesNotHaveDuplicates()
                    .isNotEmpty();
            assertThat(rendered(folder))
                    .extracting(d -> map(d, "metadata").get("namespace"))
                    .as(folder + ": one namespace")
                    .containsOnly("seckill");
        }
    }

    @Test
    @DisplayName("the overlays run one image from a registry, with a tag, in every container; the migrations Job runs "
            + "`migrate` once (no restart in place, a few retries) on the instances' ConfigMap, and the instances "
            + "only validate the schema")
    void migrationsJobAndImage() throws IOException {
        Set<String> images = new TreeSet<>();
        for (Map<String, Object> d : documents()) {
            if (d.get("kind").equals("Deployment") || d.get("kind").equals("Job")) {
                for (Map<String, Object> c : maps(podSpec(d), "containers")) {
                    images.add((String) c.get("image"));
                }
            }
        }
        assertThat(images)
                .singleElement()
                .asString()
                .matches("[a-z0-9.-]+\\.[a-z]+(:[0-9]+)?/.+/seckill-server:[0-9][^:]*");
        assertThat(rendered("base"))
                .as("the base leaves the registry to the overlay")
                .filteredOn(d -> "Deployment".equals(d.get("kind")))
                .allSatisfy(
                        d -> assertThat(maps(podSpec(d), "containers").get(0).get("image"))
                                .isEqualTo("seckill-server"));
        Map<String, Object> job = rendered("overlays/example/migrate").stream()
                .filter(d -> "Job".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        assertThat(map(job, "spec")).containsKey("backoffLimit");
        Map<String, Object> pod = podSpec(job);
        assertThat(pod).containsEntry("restartPolicy", "Never");
        Map<String, Object> container = maps(pod, "containers").get(0);
        assertThat(container.get("args")).isEqualTo(List.of("migrate"));
        assertThat(maps(pod, "volumes"))
                .anySatisfy(v -> assertThat(v.get("configMap")).isEqualTo(Map.of("name", "seckill-config")));
        assertThat(maps(container, "env"))
                .extracting(e -> e.get("name"))
                .contains("SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD");
        Map<String, Object> config = applicationYml();
        assertThat(map(config, "seckill")).containsEntry("migrate-at-start", false);
    }

    @Test
    @DisplayName("the buyers' route sends the reserve call (POST, by path pattern) to the admission entry's Service "
            + "port and every other /api/ call to the buyers' API")
    void reserveCallGoesToTheEntry() throws IOException {
        List<Map<String, Object>> app = rendered("overlays/example/app");
        Map<String, Object> route = app.stream()
                .filter(d -> "HTTPRoute".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        Map<String, Object> service = app.stream()
                .filter(d -> "Service".equals(d.get("kind")))
                .filter(d -> "seckill-api".equals(map(d, "metadata").get("name")))
                .findFirst()
                .orElseThrow();
        Map<Object, Object> targetByPort = new LinkedHashMap<>();
        maps(map(service, "spec"), "ports").forEach(p -> targetByPort.put(p.get("port"), p.get("targetPort")));
        Object entryPort = map(map(applicationYml(), "seckill"), "admission").get("entry-port");
        Map<String, Object> api = containers().stream()
                .filter(c -> args(c).contains("--seckill.roles=api"))
                .findFirst()
                .orElseThrow();
        Map<Object, Object> containerPorts = new LinkedHashMap<>();
        maps(api, "ports").forEach(p -> containerPorts.put(p.get("name"), p.get("containerPort")));

        Map<String, Object> reserve = null;
        Map<String, Object> rest = null;
        for (Map<String, Object> rule : maps(map(route, "spec"), "rules")) {
            Map<String, Object> match = maps(rule, "matches").get(0);
            if ("POST".equals(match.get("method"))) {
                reserve = rule;
                Map<String, Object> path = map(match, "path");
                assertThat(path).containsEntry("type", "RegularExpression");
                Pattern p = Pattern.compile((String) path.get("value"));
                assertThat(p.matcher("/api/v1/activities/7/skus/31/reservations")
                                .matches())
                        .isTrue();
                assertThat(Stream.of(
                                "/api/v1/activities/7/skus/31/reservations/x",
                                "/api/v1/reservations/r-1",
                                "/api/v1/activities/7/skus/31"))
                        .noneMatch(other -> p.matcher(other).matches());
            } else {
                rest = rule;
                assertThat(map(match, "path"))
                        .containsEntry("type", "PathPrefix")
                        .containsEntry("value", "/api/");
            }
        }
        assertThat(reserve).as("a rule for the reserve call").isNotNull();
        assertThat(rest).as("a rule for the rest").isNotNull();
        Map<String, Object> toEntry = maps(reserve, "backendRefs").get(0);
        assertThat(toEntry.get("name")).isEqualTo("seckill-api");
        assertThat(containerPorts.get(targetByPort.get(toEntry.get("port"))))
                .as("the reserve call's Service port leads to the entry's port")
                .isEqualTo(entryPort);
        Map<String, Object> toApi = maps(rest, "backendRefs").get(0);
        assertThat(containerPorts.get(targetByPort.get(toApi.get("port"))))
                .as("the rest leads to the buyers' port")
                .isEqualTo(map(applicationYml(), "server").get("port"));
    }

    @Test
    @DisplayName(
            "backing services: CloudNativePG with a synchronous standby behind the read-write Service the JDBC URL "
                    + "names, a Redis Cluster with noeviction and partial coverage behind the seed the ConfigMap names, "
                    + "RocketMQ NameServers behind the Service the ConfigMap names and brokers replicating synchronously")
    void backingServicesMatchTheDefaults() throws IOException {
        Map<String, Map<String, Object>> byKind = new LinkedHashMap<>();
        List<Map<String, Object>> backing = rendered("backing");
        for (Map<String, Object> d : backing) {
            byKind.put(d.get("kind") + "/" + map(d, "metadata").get("name"), d);
        }
        Map<String, Object> config = applicationYml();
        Map<String, Object> seckill = map(config, "seckill");

        Map<String, Object> pg = byKind.get("Cluster/seckill-pg");
        assertThat(pg).as("a CloudNativePG Cluster").isNotNull();
        assertThat(map(map(pg, "spec"), "postgresql").get("synchronous"))
                .isEqualTo(Map.of("method", "any", "number", 1, "dataDurability", "required"));
        assertThat((Integer) map(pg, "spec").get("instances")).isGreaterThanOrEqualTo(2);
        String jdbc = (String) map(map(config, "spring"), "datasource").get("url");
        assertThat(jdbc)
                .startsWith("jdbc:postgresql://seckill-pg-rw:5432/"
                        + map(map(map(pg, "spec"), "bootstrap"), "initdb").get("database") + "?");

        Map<String, Object> redis = byKind.get("RedisCluster/seckill-redis");
        assertThat(redis).as("a RedisCluster").isNotNull();
        assertThat(seckill.get("redis-cluster")).isEqualTo("redis://seckill-redis-leader:6379");
        String redisConfigMap = (String)
                map(map(map(redis, "spec"), "redisLeader"), "redisConfig").get("additionalRedisConfig");
        assertThat(map(map(map(redis, "spec"), "redisFollower"), "redisConfig"))
                .containsEntry("additionalRedisConfig", redisConfigMap);
        String redisConf = (String) map(byKind.get("ConfigMap/" + redisConfigMap), "data")
                .values()
                .iterator()
                .next();
        assertThat(redisConf).contains("maxmemory-policy noeviction", "cluster-require-full-coverage no");

        Map<String, Object> namesrv = byKind.get("Service/rocketmq-namesrv");
        assertThat(map(map(namesrv, "spec"), "selector"))
                .containsEntry(
                        "name_service_cr",
                        map(byKind.get("NameService/rocketmq-namesrv"), "metadata")
                                .get("name"));
        assertThat(maps(map(namesrv, "spec"), "ports"))
                .singleElement()
                .satisfies(p -> assertThat(p).containsEntry("port", 9876));
        assertThat(map(seckill, "mq")).containsEntry("namesrv", "rocketmq-namesrv:9876");
        assertThat(map(byKind.get("Broker/rocketmq-broker"), "spec")).containsEntry("replicationMode", "SYNC");
    }

    private static Map<String, Object> applicationYml() throws IOException {
        return new Yaml().load((String) map(one("ConfigMap"), "data").get("application.yml"));
    }

    private static Map<String, Object> podSpec(Map<String, Object> workload) {
        return map(map(map(workload, "spec"), "template"), "spec");
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

    /** The engine as an operator applies it: the example overlay of the app and of the migrations Job, rendered. */
    private static List<Map<String, Object>> documents() throws IOException {
        List<Map<String, Object>> out = new ArrayList<>(rendered("overlays/example/app"));
        out.addAll(rendered("overlays/example/migrate"));
        return out;
    }

    /** {@code kubectl kustomize} of one folder under deploy/k8s: each document of its output. */
    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rendered(String folder) throws IOException {
        List<Map<String, Object>> cached = RENDERED.get(folder);
        if (cached != null) {
            return cached;
        }
        Process p;
        try {
            p = new ProcessBuilder("kubectl", "kustomize", K8S.resolve(folder).toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "kubectl renders the manifests (kubectl kustomize) and is not on the PATH: install "
                            + "kubectl (./seckill test tries to)",
                    e);
        }
        String yaml = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            assertThat(p.waitFor())
                    .as("kubectl kustomize " + folder + ": " + yaml)
                    .isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object doc : new Yaml().loadAll(yaml)) {
            assertThat(doc).as(folder + " renders mappings").isInstanceOf(Map.class);
            out.add((Map<String, Object>) doc);
        }
        RENDERED.put(folder, List.copyOf(out));
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

    /** A container's Spring arguments: what follows its command ({@code serve}, {@code migrate}). */
    private static List<String> args(Map<String, Object> container) {
        List<String> out = new ArrayList<>();
        for (Object a : (List<?>) container.getOrDefault("args", List.of())) {
            out.add((String) a);
        }
        assertThat(out).as("a container's command").isNotEmpty();
        assertThat(out.get(0)).isIn("serve", "migrate");
        return out.subList(1, out.size());
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
