package io.seckill.entry;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.seckill.api.BuyerTokens;
import io.seckill.json.Json;
import io.seckill.refusal.Refusal;
import io.seckill.reservation.ReserveCall;
import io.seckill.state.PublicStatus;
import io.seckill.trace.PipelineTrace;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * Answers one reserve call: the bearer token is verified before the body is parsed, then the path,
 * the media type and the body, then {@link ReserveCall}. The event loop only hands the whole request
 * to the answering threads (the call waits for Redis); a full queue is a 503. An answer that asks the
 * client to come back (429, 503) is written {@code seckill.admission.entry-limits.retry-answer-delay}
 * after it is ready, by the connection's event loop: a client asking again at once after every refusal
 * is answered once a delay per connection instead of as fast as the cores answer, and what the cores
 * would spend on its refusals goes to the calls that can be served and the orders behind them. One
 * instance per connection.
 */
final class ReserveHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(ReserveHandler.class);
    private static final String PREFIX = "/api/v1/activities/";
    private static final String SPAN_NAME = "POST /api/v1/activities/{activityId}/skus/{skuId}/reservations";

    /** What every connection's handler shares, made once when the entry starts. */
    record Shared(
            ReserveCall reserve,
            BuyerTokens buyers,
            Executor answering,
            EntryMetrics metrics,
            PipelineTrace trace,
            int maxPipelined,
            AddressShare shares,
            long retryAnswerDelayNanos) {}

    private static final CompletableFuture<Void> WRITTEN = CompletableFuture.completedFuture(null);

    private final Shared shared;
    /** The last call of this connection handed on; touched by its event loop only. */
    private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
    /** Calls of this connection read and not yet answered (counted up on the event loop, down by the answering threads). */
    private final AtomicInteger unanswered = new AtomicInteger();

    ReserveHandler(Shared shared) {
        this.shared = shared;
    }

    /** What the answering thread needs of the request: its bytes are copied out of the event loop's buffers. */
    private record Call(
            long startNanos,
            HttpMethod method,
            String uri,
            String authorization,
            String contentType,
            String traceparent,
            byte[] body,
            boolean keepAlive) {}

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        long start = System.nanoTime();
        // a client pipelining without end is not read further while it has maxPipelined calls unanswered: what it
        // sent waits in its own socket buffers, not as calls in this process's memory
        if (unanswered.incrementAndGet() >= shared.maxPipelined()
                && ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
            shared.metrics().readPaused();
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        Call call = request.decoderResult().isFailure()
                ? null
                : new Call(
                        start,
                        request.method(),
                        request.uri(),
                        request.headers().get(HttpHeaderNames.AUTHORIZATION),
                        request.headers().get(HttpHeaderNames.CONTENT_TYPE),
                        request.headers().get(PipelineTrace.TRACEPARENT),
                        ByteBufUtil.getBytes(request.content()),
                        keepAlive);
        // a client over its address's share is refused before its token is checked (a counter, not a signature)
        boolean overShare = call != null && !shared.shares().tryAcquire(remote(ctx));
        // one connection's answers leave in the order of its requests (HTTP/1.1 pipelining): each call waits for
        // the one before it on the same connection; connections run side by side
        previous = previous.thenComposeAsync(
                        v -> {
                            if (overShare) {
                                FullHttpResponse refused = Answers.problem(
                                        HttpResponseStatus.TOO_MANY_REQUESTS,
                                        "TOO_MANY_REQUESTS",
                                        "this address's share of the entry's calls is used up for this second",
                                        keepAlive);
                                refused.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
                                return send(ctx, start, refused, "TOO_MANY_REQUESTS");
                            } else if (call == null) {
                                return send(
                                        ctx,
                                        start,
                                        Answers.problem(
                                                HttpResponseStatus.BAD_REQUEST,
                                                "INVALID_REQUEST",
                                                "malformed HTTP request",
                                                false),
                                        "INVALID_REQUEST");
                            } else {
                                return answer(ctx, call);
                            }
                        },
                        shared.answering())
                .exceptionallyCompose(e -> {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof RejectedExecutionException) {
                        return send(
                                ctx,
                                start,
                                Answers.problem(
                                        HttpResponseStatus.SERVICE_UNAVAILABLE,
                                        "ADMISSION_PAUSED",
                                        "the admission entry is saturated; retry later",
                                        keepAlive),
                                "ADMISSION_PAUSED");
                    } else {
                        log.error(
                                "admission.entry.answer_failed error_class={}",
                                cause.getClass().getName(),
                                cause);
                        return send(
                                ctx,
                                start,
                                Answers.problem(
                                        HttpResponseStatus.INTERNAL_SERVER_ERROR,
                                        "INTERNAL_ERROR",
                                        "internal error",
                                        false),
                                "INTERNAL_ERROR");
                    }
                });
    }

    private static InetAddress remote(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a
                ? a.getAddress()
                : InetAddress.getLoopbackAddress();
    }

    /** A connection idle past the entry's limit (no request, no answer owed) is closed and counted. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            shared.metrics().channelFailed("idle");
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    /** A response and the code it answers with (the metric's tag). */
    private record Answered(FullHttpResponse response, String code) {}

    /** The call answered under its request span: the order message's send is its child, as on the API port. */
    private CompletableFuture<Void> answer(ChannelHandlerContext ctx, Call call) {
        Span span = shared.trace().serve(SPAN_NAME, call.traceparent());
        Answered a;
        try (Tracer.SpanInScope scope = shared.trace().inScope(span)) {
            a = answer(call);
        }
        span.tag(
                        "http.response.status_code",
                        Integer.toString(a.response().status().code()))
                .end();
        return send(ctx, call.startNanos(), a.response(), a.code());
    }

    private Answered answer(Call call) {
        // a refusal of the token names no instance, as the API port's security layer does not
        String instance = null;
        try {
            long userId = authenticate(call.authorization());
            String path = new QueryStringDecoder(call.uri()).path();
            instance = path;
            long[] target = route(call.method(), path);
            ReserveCall.Accepted accepted = shared.reserve().answer(userId, target[0], target[1], body(call));
            return new Answered(
                    Answers.json(HttpResponseStatus.ACCEPTED, accepted, call.keepAlive()), PublicStatus.QUEUED.name());
        } catch (Refusal r) {
            return new Answered(Answers.refusal(r, instance, call.keepAlive()), r.code());
        } catch (MethodNotAllowed e) {
            FullHttpResponse response = Answers.problem(
                    HttpResponseStatus.METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", e.getMessage(), call.keepAlive());
            response.headers().set(HttpHeaderNames.ALLOW, "POST");
            return new Answered(response, "METHOD_NOT_ALLOWED");
        } catch (RuntimeException e) {
            log.error("request failed error_class={}", e.getClass().getName(), e);
            return new Answered(
                    Answers.problem(
                            HttpResponseStatus.INTERNAL_SERVER_ERROR,
                            "INTERNAL_ERROR",
                            "internal error",
                            call.keepAlive()),
                    "INTERNAL_ERROR");
        }
    }

    /**
     * Writes {@code response} now, or a 429 or 503 once the retry-answer delay has passed (the connection's later
     * answers wait for it: the returned future completes when the answer is handed to the connection).
     */
    private CompletableFuture<Void> send(
            ChannelHandlerContext ctx, long start, FullHttpResponse response, String code) {
        long delay = shared.retryAnswerDelayNanos();
        if (delay == 0 || !asksToComeBack(response)) {
            write(ctx, start, response, code);
            return WRITTEN;
        }
        CompletableFuture<Void> written = new CompletableFuture<>();
        Runnable held = () -> {
            try {
                write(ctx, start, response, code);
            } finally {
                written.complete(null);
            }
        };
        try {
            ctx.executor().schedule(held, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the event loop is closing with the entry: the answer goes at once, as the connection ends
            held.run();
        }
        return written;
    }

    /** A 429 or a 503: the client is told to come back (Retry-After, or a pause it cannot outwait at once). */
    private static boolean asksToComeBack(FullHttpResponse response) {
        int status = response.status().code();
        return status == HttpResponseStatus.TOO_MANY_REQUESTS.code()
                || status == HttpResponseStatus.SERVICE_UNAVAILABLE.code();
    }

    private void write(ChannelHandlerContext ctx, long start, FullHttpResponse response, String code) {
        shared.metrics().answered(response.status().code(), code, start);
        var written = ctx.writeAndFlush(response);
        if (!HttpUtil.isKeepAlive(response)) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        // only the answer that brings the count below the bound asks the event loop to read again
        if (unanswered.decrementAndGet() == shared.maxPipelined() - 1) {
            ctx.executor().execute(() -> {
                if (unanswered.get() < shared.maxPipelined()
                        && !ctx.channel().config().isAutoRead()) {
                    ctx.channel().config().setAutoRead(true);
                }
            });
        }
    }

    /** The buyer's user id, from a bearer token the buyers' rules accept (the API port's; {@link BuyerTokens}). */
    private long authenticate(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw Refusal.unauthenticated("missing bearer token");
        }
        String token = authorization.substring(7).strip();
        if (token.isEmpty() || token.indexOf(' ') >= 0) {
            throw Refusal.unauthenticated("Bearer token is malformed");
        }
        try {
            return shared.buyers().userId(token);
        } catch (BadJwtException e) {
            throw Refusal.unauthenticated(e.getMessage());
        } catch (JwtException e) {
            // the decoder could not judge the token (an identity provider's keys out of reach): not the buyer's fault
            throw Refusal.unavailable("UNAVAILABLE", "tokens cannot be verified now; retry later");
        }
    }

    /**
     * A connection that failed under the handler: a client that reset or dropped its connection (wrk at
     * the end of a run, a buyer closing the app) is counted and logged at debug; anything else is a
     * warning. The connection is closed either way; a call already handed on is still answered into it.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        boolean client = cause instanceof java.io.IOException || cause instanceof PrematureChannelClosureException;
        shared.metrics().channelFailed(client ? "client_io" : cause.getClass().getSimpleName());
        if (client) {
            log.debug(
                    "admission.entry.connection_lost remote={}: {}",
                    ctx.channel().remoteAddress(),
                    cause.toString());
        } else {
            log.warn(
                    "admission.entry.channel_failed remote={} error_class={}",
                    ctx.channel().remoteAddress(),
                    cause.getClass().getName(),
                    cause);
        }
        ctx.close();
    }

    /** {@code [activityId, skuId]} of the one path served here; anything else is refused as the API port would. */
    private static long[] route(HttpMethod method, String path) {
        String[] parts =
                path.startsWith(PREFIX) ? path.substring(PREFIX.length()).split("/", -1) : new String[0];
        if (parts.length != 4 || !parts[1].equals("skus") || !parts[3].equals("reservations")) {
            throw Refusal.notFound(
                    "NOT_FOUND", "no endpoint " + path + " on the admission entry (it serves reservations)");
        }
        if (!HttpMethod.POST.equals(method)) {
            throw new MethodNotAllowed(method);
        }
        return new long[] {pathNumber(parts[0], "activity_id"), pathNumber(parts[2], "sku_id")};
    }

    private static long pathNumber(String raw, String field) {
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw Refusal.invalid(field, "not a valid long");
        }
    }

    /** The JSON body, or null when there is none. */
    private static ReserveCall.Body body(Call call) {
        if (call.body().length == 0) {
            return null;
        }
        String type = call.contentType() == null ? "" : call.contentType().toLowerCase(Locale.ROOT);
        int semicolon = type.indexOf(';');
        String media = (semicolon < 0 ? type : type.substring(0, semicolon)).strip();
        if (!media.equals("application/json") && !media.endsWith("+json")) {
            throw new Refusal(
                    Refusal.Kind.UNSUPPORTED_MEDIA,
                    "UNSUPPORTED_MEDIA_TYPE",
                    "content type must be application/json",
                    "content_type",
                    Map.of());
        }
        // read token by token, neither bound to the record nor built as a tree (each cost a share of the entry's CPU);
        // what binding accepts is accepted alike: a string or a number as the id, null or absent as none, a
        // repeated key's last value, an object or array as the id refused wherever it stands, nothing after the object
        try (JsonParser p = Json.MAPPER.createParser(call.body())) {
            JsonToken first = p.nextToken();
            if (first == null || first == JsonToken.VALUE_NULL) {
                endOfBody(p);
                return null;
            }
            if (first != JsonToken.START_OBJECT) {
                throw malformedBody();
            }
            String id = null;
            for (JsonToken t = p.nextToken(); t == JsonToken.PROPERTY_NAME; t = p.nextToken()) {
                boolean requestId = "request_id".equals(p.currentName());
                JsonToken value = p.nextToken();
                if (requestId && value.isStructStart()) {
                    throw malformedBody();
                }
                if (requestId) {
                    id = value == JsonToken.VALUE_NULL ? null : p.getString();
                }
                p.skipChildren();
            }
            endOfBody(p);
            return new ReserveCall.Body(id);
        } catch (JacksonException e) {
            throw malformedBody();
        }
    }

    private static void endOfBody(JsonParser p) {
        if (p.nextToken() != null) {
            throw malformedBody();
        }
    }

    private static Refusal malformedBody() {
        return Refusal.invalid("body", "missing or malformed JSON body");
    }

    /** A method other than POST on the reservation path. */
    private static final class MethodNotAllowed extends RuntimeException {
        MethodNotAllowed(HttpMethod method) {
            super("Request method '" + method + "' is not supported", null, false, false);
        }
    }
}
