package io.seckill.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import io.seckill.cli.SaleClient;
import io.seckill.runbook.Freezes;
import io.seckill.support.IntegrationTest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What reaches a text log line from outside. */
class LogLinesIT extends IntegrationTest {

    @Test
    @DisplayName("an operator's reason carrying CR/LF is logged on one line, the line breaks escaped: it cannot forge "
            + "the next line")
    void controlCharactersAreEscaped() throws Exception {
        long activityId = openSale(2);
        String rid = reservationId(601, activityId);
        awaitSettled(activityId, 1);
        String messageId = jdbc.queryForObject(
                "SELECT message_id::text FROM inventory_reservation WHERE reservation_id = ?::uuid", String.class, rid);

        Logger logger = (Logger) LoggerFactory.getLogger(Freezes.class);
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(logger.getLoggerContext());
        encoder.setPattern("%level %logger{0} - %msg%n");
        encoder.start();
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(logger.getLoggerContext());
        appender.setEncoder(encoder);
        appender.setOutputStream(lines);
        appender.start();
        logger.addAppender(appender);
        try {
            SaleClient.Response frozen = client().post(
                            "/api/v1/admin/freeze/" + messageId,
                            adminToken(),
                            Map.of("reason", "incident 7\r\n01:00:00.000 ERROR [main] forged - all stock released"));
            assertThat(frozen.status()).as(frozen.body().toString()).isEqualTo(200);
        } finally {
            logger.detachAppender(appender);
            appender.stop();
        }
        String written = lines.toString(StandardCharsets.UTF_8);
        assertThat(written.lines().filter(l -> l.contains("runbook.freeze")))
                .singleElement()
                .asString()
                .contains("reason=incident 7\\r\\n01:00:00.000 ERROR [main] forged - all stock released");
        assertThat(written.lines()).noneMatch(l -> l.startsWith("01:00:00.000"));
    }
}
