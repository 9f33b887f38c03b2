package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/**
 * A status column as a type: each state may move to the states {@link Transitions} names for it.
 * The same rule is the guard of the SQL that makes the move ({@code WHERE status IN (...)}); a test
 * holds the two together and holds the states to the table's CHECK constraint (docs/DESIGN.md,
 * "States").
 */
public interface Lifecycle<S extends Enum<S> & Lifecycle<S>> {

    /** The states this one may move to; empty for a final state. */
    @SuppressWarnings("unchecked")
    default Set<S> next() {
        return Transitions.next((S) this);
    }

    default boolean canMoveTo(S target) {
        return next().contains(target);
    }

    default boolean isFinal() {
        return next().isEmpty();
    }

    /** The states that may move to {@code target}: the guard of the statement that makes the move. */
    static <S extends Enum<S> & Lifecycle<S>> Set<S> sources(Class<S> type, S target) {
        EnumSet<S> out = EnumSet.noneOf(type);
        for (S s : type.getEnumConstants()) {
            if (s.canMoveTo(target)) {
                out.add(s);
            }
        }
        return out;
    }
}
