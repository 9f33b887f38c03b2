package io.seckill.support;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Answers of the JDK's HTTP servers that tests stand up (an identity provider, a counting target). */
public final class JsonReplies {

    private JsonReplies() {}

    /** Answers {@code status} with {@code json} as the body, and ends the exchange. */
    public static void reply(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
