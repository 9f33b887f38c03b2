package io.seckill.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.logging.LoggingSystemProperties;
import org.springframework.boot.logging.LoggingSystemProperty;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;

class EscapedMessageConverterTest {

    @Test
    @DisplayName("CR, LF, tab, other control characters and the Unicode line separators are escaped; plain text is "
            + "returned as it is")
    void escapes() {
        String plain = "reservation.created reservation_id=1 user_id=2";
        assertThat(EscapedMessageConverter.escape(plain)).isSameAs(plain);
        assertThat(EscapedMessageConverter.escape("reason=incident\r\n01:00:00.000 ERROR forged"))
                .isEqualTo("reason=incident\\r\\n01:00:00.000 ERROR forged");
        assertThat(EscapedMessageConverter.escape("a\tb\u0000c\u001bd\u007fe\u0085f\u2028g"))
                .isEqualTo("a\\tb\\u0000c\\u001bd\\u007fe\\u0085f\\u2028g");
        assertThat(EscapedMessageConverter.escape("zhong wen \u4e2d\u6587 stays"))
                .isEqualTo("zhong wen \u4e2d\u6587 stays");
        assertThat(EscapedMessageConverter.escape(null)).isNull();
    }

    @Test
    @DisplayName("once installed, every pattern's %m, %msg and %message writes the escaped message, arguments included")
    void installedInEveryPattern() {
        EscapedMessageConverter.install();
        LoggerContext context = new LoggerContext();
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.setPattern("%level %m|%msg|%message%n");
        layout.start();
        LoggingEvent event = new LoggingEvent(
                "test", context.getLogger("test"), Level.WARN, "runbook.freeze reason={}", null, new Object[] {"x\r\ny"
                });
        assertThat(layout.doLayout(event))
                .isEqualTo("WARN runbook.freeze reason=x\\r\\ny|runbook.freeze reason=x\\r\\ny|runbook.freeze "
                        + "reason=x\\r\\ny" + System.lineSeparator());
    }

    @Test
    @DisplayName("%escEx writes the stack trace with every exception's message escaped, causes and suppressed "
            + "included: a message cannot start a line of its own")
    void stackTracesEscaped() {
        EscapedMessageConverter.install();
        LoggerContext context = new LoggerContext();
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.setPattern("%level %m%n%" + EscapedMessageConverter.EXCEPTION_WORD);
        layout.start();
        IllegalStateException cause = new IllegalStateException("bad header\r\n01:00:00.000 ERROR forged - cause");
        IllegalArgumentException failure = new IllegalArgumentException("bad body\n01:00:00.000 ERROR forged", cause);
        failure.addSuppressed(new RuntimeException("closing\n01:00:00.000 ERROR forged - suppressed"));
        LoggingEvent event = new LoggingEvent(
                "test", context.getLogger("test"), Level.ERROR, "request failed", failure, new Object[0]);

        String written = layout.doLayout(event);

        assertThat(written.lines())
                .as(written)
                .noneMatch(l -> l.startsWith("01:00"))
                .anyMatch(l -> l.equals("java.lang.IllegalArgumentException: bad body\\n01:00:00.000 ERROR forged"))
                .anyMatch(l -> l.contains("Caused by: java.lang.IllegalStateException: bad header\\r\\n01:00"))
                .anyMatch(l -> l.contains("Suppressed: java.lang.RuntimeException: closing\\n01:00"))
                .anyMatch(l -> l.contains("at io.seckill.metrics.EscapedMessageConverterTest.stackTracesEscaped"));
    }

    @Test
    @DisplayName("the application's configuration makes %escEx the exception conversion word Spring Boot's log "
            + "patterns end with")
    void applicationWritesStackTracesWithIt() throws Exception {
        StandardEnvironment environment = new StandardEnvironment();
        new YamlPropertySourceLoader()
                .load("application", new ClassPathResource("application.yml"))
                .forEach(environment.getPropertySources()::addLast);
        String before =
                System.getProperty(LoggingSystemProperty.EXCEPTION_CONVERSION_WORD.getEnvironmentVariableName());
        try {
            new LoggingSystemProperties(environment).apply();
            assertThat(System.getProperty(LoggingSystemProperty.EXCEPTION_CONVERSION_WORD.getEnvironmentVariableName()))
                    .isEqualTo("%" + EscapedMessageConverter.EXCEPTION_WORD);
        } finally {
            if (before == null) {
                System.clearProperty(LoggingSystemProperty.EXCEPTION_CONVERSION_WORD.getEnvironmentVariableName());
            } else {
                System.setProperty(
                        LoggingSystemProperty.EXCEPTION_CONVERSION_WORD.getEnvironmentVariableName(), before);
            }
        }
    }

    @Test
    @DisplayName("the application installs it as it starts (META-INF/spring.factories)")
    void installedAtStart() {
        List<?> listeners = SpringFactoriesLoader.forDefaultResourceLocation().load(ApplicationListener.class);
        assertThat(listeners).hasAtLeastOneElementOfType(EscapedMessageConverter.Installer.class);
    }
}
