package io.seckill.entry;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import java.util.concurrent.TimeUnit;

/**
 * Whole requests of at most {@code seckill.api.max-body-bytes}, as on the API port: a body over the
 * bound (declared or read) is answered 413 with a problem document and the connection is closed
 * once the client has had a moment to finish sending.
 */
final class BoundedAggregator extends HttpObjectAggregator {

    /** How long the rest of an oversized body is read and dropped after its 413, before the connection closes. */
    static final long LINGER_MS = 1000;

    private final EntryMetrics metrics;

    BoundedAggregator(long maxBytes, EntryMetrics metrics) {
        super((int) Math.min(Integer.MAX_VALUE, maxBytes));
        this.metrics = metrics;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        long start = System.nanoTime();
        // written past the keep-alive handler, which would close the connection the moment this answer (which says
        // Connection: close) is written
        ChannelHandlerContext keepAlive = ctx.pipeline().context(HttpServerKeepAliveHandler.class);
        (keepAlive == null ? ctx : keepAlive)
                .writeAndFlush(Answers.problem(
                        HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                        "PAYLOAD_TOO_LARGE",
                        "request body is over the limit of " + maxContentLength() + " bytes",
                        false))
                .addListener(f -> lingerThenClose(ctx));
        metrics.answered(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code(), "PAYLOAD_TOO_LARGE", start);
    }

    /**
     * Closing while the client's body is still arriving would reset the connection, and the reset can
     * reach the client before the 413 does (it then sees a broken connection, not the answer). So the
     * answer is followed by the end of this side's output; what the client still sends is read and
     * dropped (the aggregator ignores the rest of an oversized message) for at most {@link #LINGER_MS},
     * and then the connection is closed.
     */
    private static void lingerThenClose(ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof SocketChannel socket && socket.isActive()) {
            socket.shutdownOutput();
            ctx.executor().schedule(() -> ctx.close(), LINGER_MS, TimeUnit.MILLISECONDS);
        } else {
            ctx.close();
        }
    }
}
