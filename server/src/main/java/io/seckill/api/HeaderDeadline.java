package io.seckill.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.metrics.LogThrottle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.coyote.AbstractProcessor;
import org.apache.coyote.Constants;
import org.apache.coyote.Request;
import org.apache.tomcat.util.net.NioChannel;
import org.apache.tomcat.util.net.SocketWrapperBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * A request's line and headers must arrive on the API port within {@code seckill.api.header-timeout}
 * of the request's first byte; a connection still short of them then is closed and counted
 * ({@code api_request_header_timeouts_total}).
 *
 * <p>Tomcat parses headers without holding a request thread, and closes a connection only after
 * {@code server.tomcat.connection-timeout} without a byte. A client that trickles its headers a byte
 * every few seconds (slowloris) is never closed by that: each byte restarts the wait, and eight
 * kilobytes of headers last for hours. Enough such connections would fill
 * {@code server.tomcat.max-connections} and shut every buyer out. The body has its own deadline
 * ({@link BodyReadFilter}); this is the one before it, as the admission entry has for its whole
 * request.
 *
 * <p>A scan every quarter of the timeout (at most a second) looks at each open connection: one whose
 * request is still being parsed, with a first byte older than the timeout, is closed. Idle
 * connections between requests are not parsing one; Tomcat's keep-alive timeout closes them.
 */
@Component
class HeaderDeadline implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(HeaderDeadline.class);

    private final long timeoutNanos;
    private final long scanMillis;
    private final Counter timedOut;
    private final LogThrottle logThrottle = new LogThrottle(Duration.ofSeconds(10));
    private final List<ApiPortProtocol> protocols = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService scanner = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "api-header-deadline");
        thread.setDaemon(true);
        return thread;
    });

    HeaderDeadline(@Value("${seckill.api.header-timeout:5s}") Duration timeout, MeterRegistry meters) {
        if (timeout.toMillis() < 100) {
            throw new IllegalArgumentException("seckill.api.header-timeout: must be at least 100ms");
        }
        this.timeoutNanos = timeout.toNanos();
        this.scanMillis = Math.min(1000, timeout.toMillis() / 4);
        this.timedOut = Counter.builder("api.request.header.timeouts")
                .description("API port connections closed because a request's line and headers had not all arrived "
                        + "within seckill.api.header-timeout of its first byte")
                .register(meters);
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.setProtocol(ApiPortProtocol.class.getName());
        factory.addConnectorCustomizers(connector -> {
            if (connector.getProtocolHandler() instanceof ApiPortProtocol protocol) {
                watch(protocol);
            }
        });
    }

    private void watch(ApiPortProtocol protocol) {
        if (protocols.isEmpty()) {
            scanner.scheduleWithFixedDelay(this::scanSafely, scanMillis, scanMillis, TimeUnit.MILLISECONDS);
        }
        protocols.add(protocol);
    }

    private void scanSafely() {
        try {
            int closed = scan(System.nanoTime());
            if (closed > 0) {
                long suppressed = logThrottle.tryAcquire();
                if (suppressed >= 0) {
                    log.warn(
                            "api.header_timeout closed={} timeout_ms={} suppressed_lines={}",
                            closed,
                            TimeUnit.NANOSECONDS.toMillis(timeoutNanos),
                            suppressed);
                }
            }
        } catch (RuntimeException e) {
            // the scan runs again at its next turn; a failure here must not end the scanner
            log.error("api.header_deadline_scan_failed", e);
        }
    }

    /** Closes the connections whose request has been parsed for longer than the timeout; returns how many. */
    int scan(long now) {
        int closed = 0;
        for (ApiPortProtocol protocol : protocols) {
            for (SocketWrapperBase<NioChannel> connection : protocol.connections()) {
                if (overdue(connection, now)) {
                    // counted before the close, so whoever sees the connection closed finds it counted
                    timedOut.increment();
                    connection.close();
                    closed++;
                }
            }
        }
        return closed;
    }

    /**
     * Whether the connection holds a request begun more than the timeout ago and not yet parsed. Between
     * reads of a partial request Tomcat keeps the request's processor on the connection, with the stage
     * it ended its last pass in ({@code STAGE_ENDED}); while a pass runs, the stage is {@code STAGE_PARSE}
     * until the headers are whole. A request in the servlet's asynchronous mode (its body being read,
     * {@link BodyReadFilter}) is past its headers and has a deadline of its own.
     */
    private boolean overdue(SocketWrapperBase<NioChannel> connection, long now) {
        if (!(connection.getCurrentProcessor() instanceof AbstractProcessor processor)
                || processor.isAsync()
                || connection.isClosed()) {
            return false;
        }
        Request request = processor.getRequest();
        int stage = request.getRequestProcessor().getStage();
        long firstByte = request.getStartTimeNanos();
        return (stage == Constants.STAGE_PARSE || stage == Constants.STAGE_ENDED)
                && firstByte != -1
                && now - firstByte > timeoutNanos;
    }

    @Override
    public void destroy() {
        scanner.shutdownNow();
    }
}
