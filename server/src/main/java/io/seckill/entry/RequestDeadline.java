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

    private final long firstByteNanos;
    private final long timeoutNanos;
    private final EntryMetrics metrics;
    /** Armed while part of a request has arrived; event loop only. */
    private ScheduledFuture<?> timer;
    /** Armed from the connection's opening until its first byte; event loop only. */
    private ScheduledFuture<?> firstByte;

    RequestDeadline(Duration firstByte, Duration timeout, EntryMetrics metrics) {
        this.firstByteNanos = firstByte.toNanos();
        this.timeoutNanos = timeout.toNanos();
        this.metrics = metrics;
    }

    /**
     * Before the codec: a new connection must send its first byte within the first-byte timeout (one held open and
     * silent is closed, {@code type="first_byte_timeout"}); the first bytes of a request arm the request's deadline.
     */
    ChannelHandler start() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                firstByte = ctx.executor().schedule(() -> silent(ctx), firstByteNanos, TimeUnit.NANOSECONDS);
                ctx.fireChannelActive();
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (firstByte != null) {
                    firstByte.cancel(false);
                    firstByte = null;
                }
                if (timer == null) {
                    timer = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                disarm();
                if (firstByte != null) {
                    firstByte.cancel(false);
                    firstByte = null;
                }
                ctx.fireChannelInactive();
            }
        };
    }

    private void silent(ChannelHandlerContext ctx) {
        firstByte = null;
        if (ctx.channel().isActive()) {
            metrics.channelFailed("first_byte_timeout");
            ctx.close();
        }
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
