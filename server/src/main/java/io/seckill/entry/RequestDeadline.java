package io.seckill.entry;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A request must arrive whole within {@code seckill.admission.entry-limits.request-timeout} of its
 * first byte. The idle timeout alone does not stop a client that trickles a byte now and then
 * (slowloris): every byte resets it, and the connection is held for as long as the client likes.
 * One instance per connection: {@link #start()} goes before the HTTP codec (it sees raw bytes and
 * arms the timer), {@link #end()} after the aggregator (a whole request disarms it); both run on the
 * connection's event loop. When the timer fires the connection is closed and counted
 * ({@code admission_entry_channel_failures_total{type="request_timeout"}}).
 */
final class RequestDeadline {

    private final long timeoutNanos;
    private final EntryMetrics metrics;
    /** Armed while part of a request has arrived; event loop only. */
    private ScheduledFuture<?> timer;

    RequestDeadline(Duration timeout, EntryMetrics metrics) {
        this.timeoutNanos = timeout.toNanos();
        this.metrics = metrics;
    }

    /** Before the codec: the first bytes of a request arm the deadline. */
    ChannelHandler start() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (timer == null) {
                    timer = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                disarm();
                ctx.fireChannelInactive();
            }
        };
    }

    /** After the aggregator: a whole request met its deadline. */
    ChannelHandler end() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof FullHttpRequest) {
                    disarm();
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expire(ChannelHandlerContext ctx) {
        timer = null;
        metrics.channelFailed("request_timeout");
        ctx.close();
    }
}
