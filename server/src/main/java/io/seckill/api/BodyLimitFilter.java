package io.seckill.api;

import java.io.IOException;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Bounds every request body ({@code seckill.api.max-body-bytes}) before anything reads it - a
 * callback's body is verified only after it is read, so it must not be allowed to be huge. A declared
 * length over the bound is answered 413 at once (and the connection closed); a chunked body is cut
 * off at the bound while it is read, which the problem handler answers 413 too.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class BodyLimitFilter extends OncePerRequestFilter {

    private final long maxBytes;

    BodyLimitFilter(@Value("${seckill.api.max-body-bytes:65536}") long maxBytes) {
        if (maxBytes < 1024) {
            throw new IllegalArgumentException("seckill.api.max-body-bytes: must be at least 1024");
        }
        this.maxBytes = maxBytes;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            response.setHeader("Connection", "close");
            Problems.write(response, HttpStatus.PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE",
                    "request body of " + declared + " bytes is over the limit of " + maxBytes);
            return;
        }
        chain.doFilter(declared >= 0 ? request : new Bounded(request, maxBytes), response);
    }

    /** The body is larger than the bound; raised while reading it. */
    static final class TooLarge extends IOException {
        TooLarge(long max) {
            super("request body is over the limit of " + max + " bytes");
        }
    }

    private static final class Bounded extends HttpServletRequestWrapper {
        private final long max;
        private ServletInputStream stream;

        Bounded(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                ServletInputStream in = super.getInputStream();
                stream = new ServletInputStream() {
                    private long read;

                    @Override
                    public int read() throws IOException {
                        int b = in.read();
                        if (b >= 0) {
                            count(1);
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) throws IOException {
                        int n = in.read(buf, off, len);
                        if (n > 0) {
                            count(n);
                        }
                        return n;
                    }

                    private void count(int n) throws TooLarge {
                        read += n;
                        if (read > max) {
                            throw new TooLarge(max);
                        }
                    }

                    @Override
                    public boolean isFinished() {
                        return in.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return in.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        in.setReadListener(listener);
                    }
                };
            }
            return stream;
        }

        @Override
        public java.io.BufferedReader getReader() throws IOException {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(),
                    getCharacterEncoding() == null ? "UTF-8" : getCharacterEncoding()));
        }
    }
}
