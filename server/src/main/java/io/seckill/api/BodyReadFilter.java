package io.seckill.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.coyote.BadRequestException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Every request body on the API port is read whole before its handler runs, without holding a request
 * thread while the client sends it, and bounded in size ({@code seckill.api.max-body-bytes}) and in
 * time ({@code seckill.api.body-timeout}, from the headers to the body's last byte).
 *
 * <p>A handler reading its body from the socket would block one of the container's request threads
 * for as long as the client takes to send it: a few dozen connections trickling a byte now and then
 * (and the payment callback path is open to anyone) would hold every thread and switch the buyer API
 * off. Here the body is read with a {@link ReadListener} in the servlet's asynchronous mode; the thread
 * goes back to the pool between the bytes, and the request is dispatched to its handler again once the
 * body is in memory (a body already whole in the server's buffer when the request arrives, the common
 * case, is handed on as it is). A body still incomplete at the deadline is answered {@code 408 REQUEST_TIMEOUT},
 * one over the bound {@code 413 PAYLOAD_TOO_LARGE}; either way the connection is then closed rather
 * than read further ({@link UnreadBodyValve}). At most {@code seckill.api.max-slow-bodies} bodies are
 * received this way at once, which bounds the memory they hold; past it a request whose body is still
 * on its way is refused {@code 503 BUSY}; a request whose body arrives with its headers (the common case
 * for a small JSON body) never needs one of those places.
 *
 * <p>The filter runs after Spring Security's: a buyer's or an operator's token is checked before any
 * byte of the body is read.
 */
@Component
@Order(SecurityFilterProperties.DEFAULT_FILTER_ORDER + 1)
class BodyReadFilter extends OncePerRequestFilter {

    /** The request attribute the read's outcome travels in to the dispatch that follows it. */
    private static final String OUTCOME = BodyReadFilter.class.getName() + ".outcome";

    private final long maxBytes;
    private final long timeoutMs;
    private final int maxSlowBodies;
    private final AtomicInteger slowBodies = new AtomicInteger();
    private final Counter timedOut;
    private final Counter tooLarge;
    private final Counter clientGone;
    private final Counter busy;
    private final Counter malformed;

    BodyReadFilter(
            @Value("${seckill.api.max-body-bytes:65536}") long maxBytes,
            @Value("${seckill.api.body-timeout:5s}") Duration timeout,
            @Value("${seckill.api.max-slow-bodies:1000}") int maxSlowBodies,
            MeterRegistry meters) {
        if (maxBytes < 1024) {
            throw new IllegalArgumentException("seckill.api.max-body-bytes: must be at least 1024");
        }
        if (timeout.toMillis() < 100) {
            throw new IllegalArgumentException("seckill.api.body-timeout: must be at least 100ms");
        }
        if (maxSlowBodies < 1) {
            throw new IllegalArgumentException("seckill.api.max-slow-bodies: must be at least 1");
        }
        this.maxBytes = maxBytes;
        this.timeoutMs = timeout.toMillis();
        this.maxSlowBodies = maxSlowBodies;
        this.timedOut = refused(meters, "timeout");
        this.tooLarge = refused(meters, "too_large");
        this.clientGone = refused(meters, "client_gone");
        this.busy = refused(meters, "busy");
        this.malformed = refused(meters, "malformed");
        Gauge.builder("api.request.body.slow", slowBodies, AtomicInteger::get)
                .description("request bodies being received after their headers, each read without a thread; "
                        + "at seckill.api.max-slow-bodies more are refused 503")
                .register(meters);
    }

    private static Counter refused(MeterRegistry meters, String reason) {
        return Counter.builder("api.request.body.refused")
                .description("request bodies on the API port not handed to a handler: timeout (408), too_large (413), "
                        + "busy (503: max-slow-bodies being received), malformed (400: a framing the container cannot read, such as a "
                        + "bad chunk), client_gone (the connection failed while the "
                        + "body was read)")
                .tag("reason", reason)
                .register(meters);
    }

    /** The dispatch after the read comes through here too: it carries the body to the handler. */
    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Object outcome = request.getAttribute(OUTCOME);
        if (outcome != null) {
            request.removeAttribute(OUTCOME);
            switch (outcome) {
                case Body body -> chain.doFilter(new WithBody(request, body.bytes()), response);
                case Refused.TIMED_OUT ->
                    Problems.write(
                            request,
                            response,
                            HttpStatus.REQUEST_TIMEOUT,
                            "REQUEST_TIMEOUT",
                            "the request body was not received within " + timeoutMs + " ms");
                case Refused.TOO_LARGE -> tooLarge(request, response);
                case Refused.MALFORMED ->
                    Problems.write(
                            request,
                            response,
                            HttpStatus.BAD_REQUEST,
                            "MALFORMED_BODY",
                            "the request body's framing cannot be read (a malformed chunk)");
                default -> throw new IllegalStateException("unknown body outcome " + outcome);
            }
            return;
        }
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            tooLarge.increment();
            tooLarge(request, response);
            return;
        }
        if (request.getDispatcherType() != DispatcherType.REQUEST
                || request.getAttribute(UnreadBodyValve.BODY_STILL_COMING) == null) {
            // no body, or all of it already in the server's buffer: reading it cannot wait on the client
            chain.doFilter(request, response);
            return;
        }
        if (slowBodies.incrementAndGet() > maxSlowBodies) {
            slowBodies.decrementAndGet();
            busy.increment();
            response.setHeader("Retry-After", "1");
            Problems.write(
                    request,
                    response,
                    HttpStatus.SERVICE_UNAVAILABLE,
                    "BUSY",
                    "too many request bodies are being received; send the body with its headers, or retry in a second");
            return;
        }
        AsyncContext async = request.startAsync();
        async.setTimeout(timeoutMs);
        Reading reading = new Reading(request, async, request.getInputStream());
        async.addListener(reading);
        reading.in.setReadListener(reading);
    }

    private void tooLarge(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Problems.write(
                request,
                response,
                HttpStatus.PAYLOAD_TOO_LARGE,
                "PAYLOAD_TOO_LARGE",
                "request body is over the limit of " + maxBytes + " bytes");
    }

    /** A body read whole. */
    private record Body(byte[] bytes) {}

    private enum Refused {
        TIMED_OUT,
        TOO_LARGE,
        MALFORMED
    }

    /** One body being read: it ends once, by the whole body, the deadline, the bound or the connection failing. */
    private final class Reading implements ReadListener, AsyncListener {
        private final HttpServletRequest request;
        private final AsyncContext async;
        private final ServletInputStream in;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream(1024);
        private final byte[] chunk = new byte[4096];
        private final AtomicBoolean ended = new AtomicBoolean();
        private final AtomicBoolean released = new AtomicBoolean();

        Reading(HttpServletRequest request, AsyncContext async, ServletInputStream in) {
            this.request = request;
            this.async = async;
            this.in = in;
        }

        @Override
        public void onDataAvailable() throws IOException {
            while (!ended.get() && !in.isFinished() && in.isReady()) {
                int n;
                try {
                    n = in.read(chunk);
                } catch (BadRequestException e) {
                    // the client's framing (a chunk size that is no number, say): its fault, answered 400 and not
                    // logged as a failure of ours
                    if (end(Refused.MALFORMED)) {
                        malformed.increment();
                    }
                    return;
                }
                if (n < 0) {
                    return;
                }
                body.write(chunk, 0, n);
                if (body.size() > maxBytes && end(Refused.TOO_LARGE)) {
                    tooLarge.increment();
                }
            }
        }

        @Override
        public void onAllDataRead() {
            end(new Body(body.toByteArray()));
        }

        @Override
        public void onError(Throwable failure) {
            if (ended.compareAndSet(false, true)) {
                clientGone.increment();
                logger.debug("request body not read: " + failure);
                async.complete();
            }
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            if (end(Refused.TIMED_OUT)) {
                timedOut.increment();
            }
        }

        @Override
        public void onError(AsyncEvent event) {
            onError(event.getThrowable());
        }

        /** The request is answered (after the handler ran, or refused): its place among the slow bodies is free. */
        @Override
        public void onComplete(AsyncEvent event) {
            ended.set(true);
            if (released.compareAndSet(false, true)) {
                slowBodies.decrementAndGet();
            }
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // the filter starts asynchronous mode once per request
        }

        /** Hands the outcome to a dispatch of the request, unless the reading already ended; whether it did so. */
        private boolean end(Object outcome) {
            if (!ended.compareAndSet(false, true)) {
                return false;
            }
            request.setAttribute(OUTCOME, outcome);
            async.dispatch();
            return true;
        }
    }

    /** The request as its handler sees it: the body from memory. */
    private static final class WithBody extends HttpServletRequestWrapper {
        private final byte[] bytes;
        private ServletInputStream stream;

        WithBody(HttpServletRequest request, byte[] bytes) {
            super(request);
            this.bytes = bytes;
        }

        @Override
        public int getContentLength() {
            return bytes.length;
        }

        @Override
        public long getContentLengthLong() {
            return bytes.length;
        }

        @Override
        public ServletInputStream getInputStream() {
            if (stream == null) {
                ByteArrayInputStream source = new ByteArrayInputStream(bytes);
                stream = new ServletInputStream() {
                    @Override
                    public int read() {
                        return source.read();
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) {
                        return source.read(buf, off, len);
                    }

                    @Override
                    public boolean isFinished() {
                        return source.available() == 0;
                    }

                    @Override
                    public boolean isReady() {
                        return true;
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        throw new IllegalStateException("the body is already read");
                    }
                };
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws UnsupportedEncodingException {
            String encoding = getCharacterEncoding();
            Charset charset;
            try {
                charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            } catch (IllegalArgumentException e) {
                throw new UnsupportedEncodingException(encoding);
            }
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }
}
