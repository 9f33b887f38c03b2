package io.seckill.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.seckill.reservation.ReservationService;
import io.seckill.support.IntegrationTest;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** Log lines about one unit of work carry its business ids in the MDC (DESIGN.md §12.1), and only while it runs. */
class LogContextIT extends IntegrationTest {

    @Test
    @DisplayName(
            "an admission's log lines carry activity, sku, user, request, reservation, message and trace ids; none leak after")
    void admissionCarriesItsIds() throws Exception {
        long activityId = openSale(2);
        Logger logger = (Logger) LoggerFactory.getLogger(ReservationService.class);
        Level level = logger.getLevel();
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        logger.setLevel(Level.DEBUG);
        String rid;
        try {
            rid = reservationId(501, activityId);
        } finally {
            logger.detachAppender(events);
            logger.setLevel(level);
        }
        ILoggingEvent created = events.list.stream()
                .filter(e -> e.getMessage().startsWith("reservation.created"))
                .filter(e -> rid.equals(e.getMDCPropertyMap().get("reservation_id")))
                .findFirst()
                .orElseThrow();
        Map<String, String> mdc = created.getMDCPropertyMap();
        assertThat(mdc)
                .containsEntry("activity_id", Long.toString(activityId))
                .containsEntry("sku_id", "1")
                .containsEntry("user_id", "501")
                .containsKeys("request_id", "message_id", "traceId");
    }

    @Test
    @DisplayName("nested contexts restore what was there before; null ids are left out")
    void nestingRestores() {
        try (LogContext outer = LogContext.of("order_id", "o-1", "payment_id", null)) {
            assertThat(MDC.get("order_id")).isEqualTo("o-1");
            assertThat(MDC.get("payment_id")).isNull();
            try (LogContext inner = LogContext.of("order_id", "o-2", "task_id", "t")) {
                assertThat(MDC.get("order_id")).isEqualTo("o-2");
            }
            assertThat(MDC.get("order_id")).isEqualTo("o-1");
            assertThat(MDC.get("task_id")).isNull();
        }
        assertThat(MDC.get("order_id")).isNull();
    }
}
