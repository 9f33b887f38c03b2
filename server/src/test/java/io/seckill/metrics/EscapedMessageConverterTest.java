package io.seckill.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationListener;
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
    @DisplayName("the application installs it as it starts (META-INF/spring.factories)")
    void installedAtStart() {
        List<?> listeners = SpringFactoriesLoader.forDefaultResourceLocation().load(ApplicationListener.class);
        assertThat(listeners).hasAtLeastOneElementOfType(EscapedMessageConverter.Installer.class);
    }
}
