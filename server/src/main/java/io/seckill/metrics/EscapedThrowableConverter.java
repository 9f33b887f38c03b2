package io.seckill.metrics;

import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import java.util.Arrays;
import org.springframework.boot.logging.logback.ExtendedWhitespaceThrowableProxyConverter;

/**
 * A log line's stack trace as Spring Boot writes it ({@code %wEx}: on the lines after the message, with the jar of
 * each frame), with the control characters of every exception message escaped like the message's
 * ({@link EscapedMessageConverter#escape}): an exception whose message carries a value a client sent - a malformed
 * header, a callback's field quoted by a parser - cannot end its line and forge the next one. The frames' own line
 * breaks are the only ones left. Registered as {@code %escEx} ({@link EscapedMessageConverter#install}) and made
 * the application's exception conversion word ({@code logging.exception-conversion-word}).
 */
public class EscapedThrowableConverter extends ExtendedWhitespaceThrowableProxyConverter {

    @Override
    protected String throwableProxyToString(IThrowableProxy tp) {
        return super.throwableProxyToString(Escaped.of(tp));
    }

    /** The proxy of a throwable, its causes and suppressed throwables with their messages escaped. */
    private record Escaped(IThrowableProxy proxy) implements IThrowableProxy {

        static IThrowableProxy of(IThrowableProxy proxy) {
            return proxy == null || proxy instanceof Escaped ? proxy : new Escaped(proxy);
        }

        @Override
        public String getMessage() {
            return EscapedMessageConverter.escape(proxy.getMessage());
        }

        @Override
        public String getOverridingMessage() {
            return EscapedMessageConverter.escape(proxy.getOverridingMessage());
        }

        @Override
        public String getClassName() {
            return proxy.getClassName();
        }

        @Override
        public StackTraceElementProxy[] getStackTraceElementProxyArray() {
            return proxy.getStackTraceElementProxyArray();
        }

        @Override
        public int getCommonFrames() {
            return proxy.getCommonFrames();
        }

        @Override
        public IThrowableProxy getCause() {
            return of(proxy.getCause());
        }

        @Override
        public IThrowableProxy[] getSuppressed() {
            IThrowableProxy[] suppressed = proxy.getSuppressed();
            return suppressed == null
                    ? null
                    : Arrays.stream(suppressed).map(Escaped::of).toArray(IThrowableProxy[]::new);
        }

        @Override
        public boolean isCyclic() {
            return proxy.isCyclic();
        }
    }
}
