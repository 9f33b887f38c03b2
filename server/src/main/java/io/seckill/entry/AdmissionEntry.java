package io.seckill.entry;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.seckill.api.TokenDecoders;
import io.seckill.config.SeckillProperties;
import io.seckill.metrics.LogThrottle;
import io.seckill.reservation.ReserveCall;
import io.seckill.trace.PipelineTrace;
import io.seckill.worker.RoleLifecycle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.stereotype.Component;

/**
 * The lean admission entry ({@code seckill.admission.entry-port}): an HTTP/1.1 server on Netty that
 * serves only the hot call of a sale, {@code POST /api/v1/activities/{a}/skus/{s}/reservations}, with
 * the answers, refusals and token rules of the API port - the same {@link ReserveCall}, the same
 * buyers' token rules ({@link io.seckill.api.BuyerTokens}), the same problem documents - and none of
 * the general machinery around them (docs/BENCHMARKS.md shows where that machinery's CPU went). Every other call stays on the API port.
 * Runs with the {@code api} role; off by default.
 */
@Component
public class AdmissionEntry extends RoleLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AdmissionEntry.class);
    /**
     * The entry's start and stop phase: the web server's graceful shutdown's, so that the two doors close
     * and drain side by side, before the other roles ({@link RoleLifecycle#PHASE}) stop.
     */
    public static final int ENTRY_PHASE = WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE;
    /** How long a stop lets the calls in hand finish. */
    private static final Duration DRAIN = Duration.ofSeconds(5);

    private static final int IDLE_SECONDS = 60;

    private final SeckillProperties.Admission config;
    private final ReserveCall reserve;
    private final TokenDecoders decoders;
    private final MeterRegistry meters;
    private final PipelineTrace trace;
    private final long maxBodyBytes;
    /** The API port's bind address ({@code server.address}), the entry's too; all interfaces when unset. */
    private final String address;

    private EventLoopGroup acceptor;
    private EventLoopGroup io;
    private ThreadPoolExecutor answering;
    private volatile Channel server;
    /**
     * Open connections of the entry ({@code admission_entry_connections}): counted apart from {@link #open}
     * because the limit takes a place atomically before a connection is let in.
     */
    private final AtomicInteger connections = new AtomicInteger();
    /** The open connections themselves, closed one by one when the entry stops (a closed one leaves by itself). */
    private final ChannelGroup open = new DefaultChannelGroup("admission-entry", GlobalEventExecutor.INSTANCE);
    /** Open connections per remote address; an address leaves the map with its last connection. */
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    private final LogThrottle overLimit = new LogThrottle(Duration.ofSeconds(10));

    AdmissionEntry(
            SeckillProperties props,
            ReserveCall reserve,
            TokenDecoders decoders,
            MeterRegistry meters,
            PipelineTrace trace,
            @Value("${seckill.api.max-body-bytes:65536}") long maxBodyBytes,
            @Value("${server.address:}") String address) {
        super("api", props);
        this.address = address;
        this.trace = trace;
        this.config = props.admission();
        this.reserve = reserve;
        this.decoders = decoders;
        this.meters = meters;
        this.maxBodyBytes = maxBodyBytes;
        Gauge.builder("admission.entry.connections", connections, AtomicInteger::get)
                .description("open connections of the admission entry")
                .register(meters);
    }

    /**
     * Takes a place for the connection, in all and for its remote address: null when it is in, else the limit it is
     * over ({@code connection_limit}, {@code address_limit}), with no place kept.
     */
    private String admit(SocketChannel ch, SeckillProperties.EntryLimits limits) {
        if (connections.incrementAndGet() > limits.maxConnections()) {
            connections.decrementAndGet();
            return "connection_limit";
        }
        boolean[] over = {false};
        perAddress.compute(remote(ch), (a, count) -> {
            int now = count == null ? 0 : count;
            over[0] = now >= limits.maxConnectionsPerAddress();
            return over[0] ? count : now + 1;
        });
        if (over[0]) {
            connections.decrementAndGet();
            return "address_limit";
        }
        return null;
    }

    private static InetAddress remote(SocketChannel ch) {
        InetSocketAddress remote = ch.remoteAddress();
        return remote == null ? InetAddress.getLoopbackAddress() : remote.getAddress();
    }

    /** The port it listens on, or -1 when it does not run. */
    public int port() {
        Channel c = server;
        return c == null ? -1 : ((InetSocketAddress) c.localAddress()).getPort();
    }

    @Override
    protected void startRole() {
        if (config.entryPort() < 0) {
            return;
        }
        AtomicInteger n = new AtomicInteger();
        // a full queue is answered 503 at once: a buyer waits for a refusal, never for a queue
        answering = new ThreadPoolExecutor(
                config.entryThreads(),
                config.entryThreads(),
                60,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.entryThreads() * 16),
                r -> {
                    Thread t = new Thread(r, "admission-entry-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        acceptor = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        io = new MultiThreadIoEventLoopGroup(
                Math.max(1, Runtime.getRuntime().availableProcessors() / 2), NioIoHandler.newFactory());
        EntryMetrics metrics = new EntryMetrics(meters);
        SeckillProperties.EntryLimits limits = config.entryLimits();
        ReserveHandler.Shared shared = new ReserveHandler.Shared(
                reserve,
                decoders.buyerIds(),
                answering,
                metrics,
                trace,
                limits.maxPipelined(),
                new AddressShare(limits.maxCallsPerAddressPerSecond(), System::nanoTime),
                limits.retryAnswerDelay().toNanos());
        ServerBootstrap b = new ServerBootstrap()
                .group(acceptor, io)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // past a limit a connection is closed before anything is read: one client opening connections
                        // by the thousand must not take the descriptors PostgreSQL, Redis and the broker need, nor
                        // every other buyer's place
                        String refused = admit(ch, limits);
                        if (refused != null) {
                            metrics.channelFailed(refused);
                            long suppressed = overLimit.tryAcquire();
                            if (suppressed >= 0) {
                                log.warn(
                                        "admission.entry.{} max_connections={} max_connections_per_address={} remote={} "
                                                + "(and {} more since the last line)",
                                        refused,
                                        limits.maxConnections(),
                                        limits.maxConnectionsPerAddress(),
                                        ch.remoteAddress(),
                                        suppressed);
                            }
                            ch.close();
                            return;
                        }
                        InetAddress from = remote(ch);
                        ch.closeFuture().addListener(f -> {
                            connections.decrementAndGet();
                            perAddress.computeIfPresent(from, (a, count) -> count <= 1 ? null : count - 1);
                        });
                        open.add(ch);
                        RequestDeadline deadline =
                                new RequestDeadline(limits.firstByteTimeout(), limits.requestTimeout(), metrics);
                        // a connection with nothing to read or write for a minute is closed (a client that went away,
                        // or one holding connections open)
                        ch.pipeline().addLast(new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS));
                        ch.pipeline().addLast(deadline.start());
                        ch.pipeline()
                                .addLast(new HttpServerCodec(new HttpDecoderConfig()
                                        .setMaxInitialLineLength(4096)
                                        .setMaxHeaderSize(8192)));
                        ch.pipeline().addLast(new HttpServerKeepAliveHandler());
                        ch.pipeline().addLast(new BoundedAggregator(maxBodyBytes, metrics));
                        ch.pipeline().addLast(deadline.end());
                        ch.pipeline().addLast(new ReserveHandler(shared));
                    }
                });
        InetSocketAddress at = address == null || address.isBlank()
                ? new InetSocketAddress(config.entryPort())
                : new InetSocketAddress(address, config.entryPort());
        ChannelFuture bound = b.bind(at).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            stopRole();
            throw new IllegalStateException("seckill.admission.entry-port: cannot listen on " + at, bound.cause());
        }
        server = bound.channel();
        log.info("admission.entry.started port={} threads={}", port(), config.entryThreads());
    }

    /**
     * Closes the door, then lets the calls already taken finish: no new connection is accepted, a call read
     * from now on is answered 503 (the answering pool is shut), and the calls in hand are answered within
     * {@link #DRAIN} through the still-open connections - their order messages handed to the sender, which
     * stops after the entry ({@link #getPhase()}). Then each connection closes once what was written to it
     * has gone out, and the event loops end.
     */
    @Override
    protected void stopRole() {
        Channel c = server;
        server = null;
        if (c != null) {
            c.close().awaitUninterruptibly();
        }
        if (answering != null) {
            answering.shutdown();
            try {
                if (!answering.awaitTermination(DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn(
                            "admission.entry.stop_unfinished calls_in_hand={} waited_ms={}",
                            answering.getActiveCount(),
                            DRAIN.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answering = null;
        }
        // an answer is a write queued on its connection's event loop after the answering thread has finished:
        // an empty write queued behind it at the head of the pipeline completes once the answer is out, and the
        // connection closes then (the loops' own shutdown closes their connections first and their queues after)
        for (Channel ch : open) {
            ChannelHandlerContext head = ch.pipeline().firstContext();
            if (head == null) {
                ch.close();
            } else {
                head.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }
        if (!open.newCloseFuture().awaitUninterruptibly(2, TimeUnit.SECONDS)) {
            log.warn(
                    "admission.entry.stop_unfinished connections_open={} (answers not written within 2 s)",
                    open.size());
        }
        if (io != null) {
            io.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            io = null;
            acceptor = null;
        }
    }

    /**
     * Stops first, beside the API port's graceful shutdown and before the other roles (and starts after
     * them): the sender its calls hand messages to is still running.
     */
    @Override
    public int getPhase() {
        return ENTRY_PHASE;
    }
}
