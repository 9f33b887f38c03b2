package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/**
 * A reservation hash's {@code status} in Redis: the reservation and its order as the admission scripts and the
 * projection keep them, and as buyers' status polls read them. Every status the Lua library writes or guards on a
 * reservation hash is one of these ({@code HashStatusTest} reads the scripts).
 *
 * <p>The scripts move a hash forward only: RESERVED takes any outcome; an order's states follow the order
 * (ORDER_CREATED -> CANCEL_PENDING -> PAID or CANCELLED); COMPENSATED, PAID and CANCELLED are final. The
 * PostgreSQL-only states (ORDER_REJECTED, COMPENSATING, MANUAL_REVIEW) appear on a hash only when reconciliation
 * restores a lost one as PostgreSQL holds it; compensate.lua accepts them as sources.
 */
public enum HashStatus {
    RESERVED,
    ORDER_CREATED,
    CANCEL_PENDING,
    PAID,
    CANCELLED,
    COMPENSATED,
    ORDER_REJECTED,
    COMPENSATING,
    MANUAL_REVIEW;

    /** The status read from a hash; null for a hash that is gone (null). An unknown word is an error that names it. */
    public static HashStatus parse(String status) {
        if (status == null) {
            return null;
        }
        try {
            return valueOf(status);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("a reservation hash says status '" + status + "', which no script writes");
        }
    }

    /** The status a word names, or null when it names none (a value no script writes). */
    public static HashStatus lenient(String status) {
        for (HashStatus s : values()) {
            if (s.name().equals(status)) {
                return s;
            }
        }
        return null;
    }

    /** The statuses the standard scripts (projection, release, compensation) can move this one to. */
    public Set<HashStatus> next() {
        return switch (this) {
            case RESERVED -> EnumSet.of(ORDER_CREATED, CANCEL_PENDING, PAID, CANCELLED, COMPENSATED);
            case ORDER_CREATED -> EnumSet.of(CANCEL_PENDING, PAID, CANCELLED);
            case CANCEL_PENDING -> EnumSet.of(PAID, CANCELLED);
            case ORDER_REJECTED, COMPENSATING -> EnumSet.of(COMPENSATED);
            case PAID, CANCELLED, COMPENSATED, MANUAL_REVIEW -> EnumSet.noneOf(HashStatus.class);
        };
    }

    public boolean canMoveTo(HashStatus target) {
        return next().contains(target);
    }

    /** What a buyer's poll shows for a hash in this status. */
    public PublicStatus shown() {
        return switch (this) {
            case RESERVED -> PublicStatus.QUEUED;
            case ORDER_CREATED, CANCEL_PENDING, PAID -> PublicStatus.ORDER_CREATED;
            case CANCELLED -> PublicStatus.CANCELLED;
            case MANUAL_REVIEW -> PublicStatus.UNDER_REVIEW;
            case ORDER_REJECTED, COMPENSATING, COMPENSATED -> PublicStatus.REJECTED;
        };
    }

    /** The hash status that mirrors an order status (an unpaid order shows as ORDER_CREATED). */
    public static HashStatus ofOrder(OrderStatus order) {
        return switch (order) {
            case CREATED, PAYING -> ORDER_CREATED;
            case CANCEL_PENDING -> CANCEL_PENDING;
            case PAID -> PAID;
            case CANCELLED -> CANCELLED;
        };
    }
}
