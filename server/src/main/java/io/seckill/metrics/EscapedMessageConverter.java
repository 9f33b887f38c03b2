package io.seckill.metrics;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.List;
import org.springframework.boot.context.event.ApplicationStartingEvent;
import org.springframework.context.ApplicationListener;

/**
 * A log line's message with its control characters escaped, in place of {@code %m}, {@code %msg} and
 * {@code %message} in every text pattern of the application ({@link #install}): a value a client sent - an operator's reason, a payment
 * callback's text field, a header - that carries CR or LF cannot end the line and forge the next one. CR, LF and
 * tab are written {@code \r}, {@code \n}, {@code \t}; every other control character, and the Unicode line and
 * paragraph separators, as {@code \}{@code uXXXX}. A message without any (nearly all) is returned as it is.
 */
public class EscapedMessageConverter extends MessageConverter {

    /**
     * Makes this the message converter of every pattern layout built from now on. Spring Boot builds its console
     * and file layouts (from its defaults, a {@code logging.pattern.*} or a logback file) when the environment is
     * ready, after the application starts, so the install runs on {@link ApplicationStartingEvent}
     * (META-INF/spring.factories). Structured JSON logging escapes control characters by itself.
     */
    public static void install() {
        for (String word : List.of("m", "msg", "message")) {
            PatternLayout.DEFAULT_CONVERTER_SUPPLIER_MAP.put(word, EscapedMessageConverter::new);
        }
        PatternLayout.DEFAULT_CONVERTER_SUPPLIER_MAP.put(EXCEPTION_WORD, EscapedThrowableConverter::new);
    }

    /** The conversion word of {@link EscapedThrowableConverter}, the application's exception conversion word. */
    public static final String EXCEPTION_WORD = "escEx";

    /** Installs the converter as the application starts. */
    public static final class Installer implements ApplicationListener<ApplicationStartingEvent> {
        @Override
        public void onApplicationEvent(ApplicationStartingEvent event) {
            install();
        }
    }

    @Override
    public String convert(ILoggingEvent event) {
        return escape(super.convert(event));
    }

    /** {@code text} with its control characters escaped; the same string when it has none. */
    public static String escape(String text) {
        if (text == null) {
            return null;
        }
        int first = 0;
        while (first < text.length() && !control(text.charAt(first))) {
            first++;
        }
        if (first == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\r' -> out.append("\\r");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> {
                    if (control(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    private static boolean control(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
