package io.seckill.entry;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Whole requests of at most {@code seckill.api.max-body-bytes}, as on the API port: a body over the
 * bound (declared or read) is answered 413 with a problem document and the connection is closed.
 */
final class BoundedAggregator extends HttpObjectAggregator {

    private final EntryMetrics metrics;

    BoundedAggregator(long maxBytes, EntryMetrics metrics) {
        super((int) Math.min(Integer.MAX_VALUE, maxBytes));
        this.metrics = metrics;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        long start = System.nanoTime();
        ctx.writeAndFlush(Answers.problem(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "PAYLOAD_TOO_LARGE",
                "request body is over the limit of " + maxContentLength() + " bytes", false))
                .addListener(ChannelFutureListener.CLOSE);
        metrics.answered(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code(), "PAYLOAD_TOO_LARGE", start);
    }
}
