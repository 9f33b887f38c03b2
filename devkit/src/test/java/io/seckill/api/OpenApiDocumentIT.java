package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.http.HttpHeaders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * docs/openapi.json is the API as the code declares it: the document springdoc generates from the application's
 * controllers (the buyers' API, the operator's API, the payment channel's callback) with the three listeners as its
 * servers - the buyers' port, the admission entry (which answers the reserve call only, the same operation) and the
 * operator's plane. A controller changed without the document fails here; {@code -Dseckill.openapi.write=true}
 * writes the document anew (review the diff).
 */
class OpenApiDocumentIT extends IntegrationTest {

    private static final Path DOCUMENT = Path.of("..", "docs", "openapi.json");
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    /** The two bearer tokens of SecurityConfig: a buyer's and an operator's (separate keys or scopes). */
    private static ObjectNode withSecuritySchemes(ObjectNode components) {
        ObjectNode c = components == null ? JSON.createObjectNode() : components;
        c.set(
                "securitySchemes",
                JSON.valueToTree(Map.of(
                        "buyer",
                        Map.of(
                                "type", "http",
                                "scheme", "bearer",
                                "bearerFormat", "JWT",
                                "description",
                                        "a buyer's token: sub is the user id (seckill.jwt.user-secret or the identity "
                                                + "provider)"),
                        "operator",
                        Map.of(
                                "type", "http",
                                "scheme", "bearer",
                                "bearerFormat", "JWT",
                                "description", "an operator's token, scope seckill:view (reads) or seckill:operate"))));
        return c;
    }

    /**
     * The bodies' property names as the application writes and reads them (spring.jackson.property-naming-strategy
     * SNAKE_CASE); the generator reads the records' component names.
     */
    private static void snakeCase(ObjectNode schemas) {
        for (JsonNode schema : schemas) {
            if (schema.path("properties") instanceof ObjectNode props) {
                ObjectNode renamed = JSON.createObjectNode();
                props.properties().forEach(e -> renamed.set(snake(e.getKey()), e.getValue()));
                ((ObjectNode) schema).set("properties", renamed);
            }
            if (schema.path("required").isArray()) {
                ((ObjectNode) schema)
                        .set(
                                "required",
                                JSON.valueToTree(schema.path("required")
                                        .valueStream()
                                        .map(n -> snake(n.asString()))
                                        .toList()));
            }
        }
    }

    private static String snake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** Each operation's token as SecurityConfig asks for it; the channel's callback is verified by its signature. */
    private static void secure(ObjectNode paths) {
        for (String path : paths.propertyNames()) {
            String scheme = path.startsWith("/api/v1/admin/")
                    ? "operator"
                    : path.startsWith("/api/v1/payments/callbacks/") ? null : "buyer";
            for (JsonNode op : paths.path(path)) {
                ((ObjectNode) op)
                        .set(
                                "security",
                                JSON.valueToTree(scheme == null ? List.of() : List.of(Map.of(scheme, List.of()))));
            }
        }
    }

    @Test
    @DisplayName("docs/openapi.json equals the OpenAPI 3.1 document generated from the controllers")
    void documentMatchesTheCode() throws Exception {
        // the caller, resolved from the bearer token, and the callback's raw headers are not parameters a client sends
        SpringDocUtils.getConfig()
                .addRequestWrapperToIgnore(Caller.Buyer.class, Caller.Operator.class, HttpHeaders.class);
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v3/api-docs"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        ObjectNode doc = (ObjectNode) JSON.readTree(r.body());
        doc.set(
                "info",
                JSON.valueToTree(Map.of(
                        "title", "Seckill",
                        "version", "0.1.0",
                        "description",
                                "The buyers' API (reserve, status, pay, cancel), the payment channel's callback and the "
                                        + "operator's API. Errors are problem documents (RFC 9457) with a code. Buyers and operators "
                                        + "send a bearer token (HS256, or an identity provider's).")));
        doc.set(
                "servers",
                JSON.valueToTree(List.of(
                        Map.of("url", "http://localhost:8080", "description", "the buyers' API (server.port)"),
                        Map.of(
                                "url",
                                "http://localhost:8082",
                                "description",
                                "the admission entry (seckill.admission.entry-port): the reserve call only, the same operation"),
                        Map.of(
                                "url",
                                "http://127.0.0.1:8083",
                                "description",
                                "the operator's plane (seckill.admin.port): /api/v1/admin/** only"))));
        snakeCase((ObjectNode) doc.path("components").path("schemas"));
        doc.set("components", withSecuritySchemes((ObjectNode) doc.path("components")));
        secure((ObjectNode) doc.path("paths"));
        String generated = JSON.writeValueAsString(JSON.treeToValue(doc, Object.class)) + "\n";
        JsonNode parsed = JSON.readTree(generated);
        assertThat(parsed.path("openapi").asString()).startsWith("3.1");
        assertThat(parsed.path("paths").propertyNames())
                .contains(
                        "/api/v1/activities/{activityId}/skus/{skuId}/reservations",
                        "/api/v1/reservations/{reservationId}",
                        "/api/v1/orders/{orderId}/payments",
                        "/api/v1/admin/activities");
        if (Boolean.getBoolean("seckill.openapi.write")) {
            Files.writeString(DOCUMENT, generated, StandardCharsets.UTF_8);
        }
        assertThat(DOCUMENT)
                .as("docs/openapi.json (-Dseckill.openapi.write=true writes it)")
                .exists();
        assertThat(Files.readString(DOCUMENT, StandardCharsets.UTF_8))
                .as("docs/openapi.json is the document the code generates (-Dseckill.openapi.write=true writes it)")
                .isEqualTo(generated);
    }
}
