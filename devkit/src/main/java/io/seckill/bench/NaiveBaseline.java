package io.seckill.bench;

import io.seckill.redis.Redis;
import java.util.Map;
import java.util.UUID;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The unoptimised baseline of the design's section 4, served by the bench's application beside the
 * engine's own endpoint (same Tomcat, same token check, same Redis and PostgreSQL) so the two can be
 * measured and broken the same way. A request reads the stock, decrements it, then checks for an
 * order with its request id and inserts one synchronously (a 1 s statement timeout, as a request
 * path must have). No reservation, inbox, outbox or compensation: what DESIGN.md section 4 lists as
 * wrong is wrong here on purpose - GET then DECR races, check-then-insert lets two copies of a
 * request both pass, and a unit decremented before an insert that fails is never given back.
 */
record NaiveBaseline(Redis redis, NaiveOrderRepository orders) {

    static final String PATH = "/api/v1/naive/activities/{activityId}/skus/{skuId}/orders";

    /** Adds the baseline's endpoint to an application context that is being built. */
    static void register(GenericApplicationContext ctx) {
        ctx.registerBean(NaiveOrderRepository.class, () -> NaiveOrderRepository.of(ctx));
        ctx.registerBean("naiveBaselineRoutes", RouterFunction.class, () -> {
            NaiveBaseline naive = new NaiveBaseline(ctx.getBean(Redis.class), ctx.getBean(NaiveOrderRepository.class));
            return RouterFunctions.route().POST(PATH, naive::order).build();
        });
    }

    static String stockKey(long activityId, long skuId) {
        return "naive:{" + activityId + ":" + skuId + "}:stock";
    }

    private ServerResponse order(ServerRequest request) throws Exception {
        long userId =
                Long.parseLong(((JwtAuthenticationToken) request.principal().orElseThrow())
                        .getToken()
                        .getSubject());
        long activityId = Long.parseLong(request.pathVariable("activityId"));
        long skuId = Long.parseLong(request.pathVariable("skuId"));
        UUID requestId = UUID.fromString(String.valueOf(request.body(Map.class).get("request_id")));
        String key = stockKey(activityId, skuId);
        String stock = redis.sync().get(key);
        if (stock == null || Long.parseLong(stock) <= 0) {
            return ServerResponse.status(HttpStatus.CONFLICT)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("code", "SOLD_OUT"));
        }
        redis.sync().decr(key);
        if (!orders.exists(requestId)) {
            orders.insert(activityId, skuId, userId, requestId);
        }
        // the content type named: without it Spring throws and catches a parse exception on every response it writes
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).body(Map.of("code", "ORDERED"));
    }
}
