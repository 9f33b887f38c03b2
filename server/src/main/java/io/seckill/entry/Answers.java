package io.seckill.entry;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.seckill.api.Problems;
import io.seckill.json.Json;
import io.seckill.refusal.Refusal;

/** The entry's responses: JSON bodies and problem documents of the same shape as the API port's. */
final class Answers {

    private Answers() {}

    static FullHttpResponse json(HttpResponseStatus status, Object body, boolean keepAlive) {
        return response(status, Json.bytes(body), "application/json", keepAlive);
    }

    /** A refusal's problem document; {@code instance}, the request's path, is null for a refusal of the token. */
    static FullHttpResponse refusal(Refusal refusal, String instance, boolean keepAlive) {
        HttpResponseStatus status =
                HttpResponseStatus.valueOf(Problems.status(refusal.kind()).value());
        FullHttpResponse r = response(status, Problems.json(refusal, instance), Problems.CONTENT_TYPE, keepAlive);
        if (refusal.kind() == Refusal.Kind.UNAUTHENTICATED) {
            r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        String retryAfter = Problems.retryAfter(refusal);
        if (retryAfter != null) {
            r.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfter);
        }
        return r;
    }

    static FullHttpResponse problem(HttpResponseStatus status, String code, String detail, boolean keepAlive) {
        return response(status, Problems.json(status.code(), code, detail), Problems.CONTENT_TYPE, keepAlive);
    }

    private static FullHttpResponse response(
            HttpResponseStatus status, byte[] body, String contentType, boolean keepAlive) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        HttpUtil.setKeepAlive(r, keepAlive);
        if (!keepAlive) {
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return r;
    }
}
