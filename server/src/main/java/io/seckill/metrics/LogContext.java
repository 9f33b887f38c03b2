package io.seckill.metrics;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.MDC;

/**
 * The business ids of the unit being worked on (DESIGN.md §12.1: activity, sku, user, request,
 * reservation, message, order, payment, task), in the logging MDC for as long as the work runs -
 * so every line it logs, structured JSON included ({@code logging.structured.format.console=ecs}),
 * carries them. Null values are left out; the previous values come back on close.
 */
public final class LogContext implements AutoCloseable {

    private final List<String> keys = new ArrayList<>();
    private final List<String> previous = new ArrayList<>();

    private LogContext() {}

    /** {@code of("reservation_id", rid, "order_id", oid, ...)}: pairs of key and value. */
    public static LogContext of(Object... keysAndValues) {
        LogContext c = new LogContext();
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            Object v = keysAndValues[i + 1];
            if (v != null) {
                String key = (String) keysAndValues[i];
                c.keys.add(key);
                c.previous.add(MDC.get(key));
                MDC.put(key, v.toString());
            }
        }
        return c;
    }

    @Override
    public void close() {
        for (int i = keys.size() - 1; i >= 0; i--) {
            if (previous.get(i) == null) {
                MDC.remove(keys.get(i));
            } else {
                MDC.put(keys.get(i), previous.get(i));
            }
        }
    }
}
