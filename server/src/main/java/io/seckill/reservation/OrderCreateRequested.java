package io.seckill.reservation;

import java.time.Instant;
import java.time.LocalDate;
import java.time.Month;
import java.time.Year;
import java.util.UUID;

/**
 * The ORDER_CREATE_REQUESTED message body (DESIGN.md §8.3). Immutable for a given message_id: it is
 * rebuilt from the reservation's recovery fields, never from a clock, so every resend hashes the
 * same. {@code retry_count} and trace ids travel as message properties, outside the body.
 */
public record OrderCreateRequested(
        int schemaVersion,
        String eventType,
        UUID messageId,
        String messageKey,
        UUID requestId,
        UUID reservationId,
        long activityId,
        long skuId,
        long userId,
        UUID orderId,
        String reservedAt,
        String businessDeadline) {

    public static final String EVENT_TYPE = "ORDER_CREATE_REQUESTED";

    public static OrderCreateRequested of(
            UUID messageId,
            UUID requestId,
            UUID reservationId,
            long activityId,
            long skuId,
            long userId,
            long reservedAtMs,
            long businessDeadlineMs) {
        return new OrderCreateRequested(
                ReservationIds.SCHEMA_VERSION,
                EVENT_TYPE,
                messageId,
                reservationId.toString(),
                requestId,
                reservationId,
                activityId,
                skuId,
                userId,
                null,
                Instant.ofEpochMilli(reservedAtMs).toString(),
                Instant.ofEpochMilli(businessDeadlineMs).toString());
    }

    public Instant reservedAtInstant() {
        return instant(reservedAt);
    }

    public Instant businessDeadlineInstant() {
        return instant(businessDeadline);
    }

    /** Nanoseconds per unit of a fraction of 1..9 digits (index = digits - 1). */
    private static final long[] NANOS_PER_DIGIT = {
        100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
    };

    /**
     * {@link Instant#parse}, with the form this body is written in ({@link Instant#toString}: UTC,
     * {@code 2026-12-02T18:47:57.123Z}, no fraction or 1-9 digits of it) read directly: the consumer
     * reads every message's two instants, and the general ISO parser took a third of its listener
     * threads' CPU. Anything else, or a value out of its range, is left to {@link Instant#parse}, which
     * accepts or refuses it as it always did.
     */
    static Instant instant(String text) {
        int n = text.length();
        if (n < 20
                || n > 30
                || text.charAt(4) != '-'
                || text.charAt(7) != '-'
                || text.charAt(10) != 'T'
                || text.charAt(13) != ':'
                || text.charAt(16) != ':'
                || text.charAt(n - 1) != 'Z'
                || (n > 20 && (text.charAt(19) != '.' || n == 21))) {
            return Instant.parse(text);
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = digits(text, 17, 19);
        int fraction = n > 20 ? digits(text, 20, n - 1) : 0;
        if (year < 0
                || month < 1
                || month > 12
                || day < 1
                || day > 28 && day > Month.of(month).length(Year.isLeap(year))
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59
                || fraction < 0) {
            return Instant.parse(text);
        }
        // "1" of ".1Z" is 100,000,000 ns: the fraction's digits scaled up to nine
        long nanos = n > 20 ? fraction * NANOS_PER_DIGIT[n - 22] : 0;
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
    }

    /** The decimal number in {@code text[from, to)}, or -1 when a character there is not a digit. */
    private static int digits(String text, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
