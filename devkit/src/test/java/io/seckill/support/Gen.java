package io.seckill.support;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Seeded generators for property tests: a value is a function of a {@link Random}, so a failing run
 * is replayed exactly by its seed.
 */
@FunctionalInterface
public interface Gen<T> {

    T next(Random random);

    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return r -> f.apply(next(r));
    }

    /** One of the values, uniformly (null allowed). */
    @SafeVarargs
    static <T> Gen<T> of(T... values) {
        List<T> list = Arrays.asList(values);
        return r -> list.get(r.nextInt(list.size()));
    }

    static <T> Gen<T> of(List<T> values) {
        return r -> values.get(r.nextInt(values.size()));
    }

    static <T> Gen<T> just(T value) {
        return r -> value;
    }

    /** Computed afresh each time (a new UUID, say). */
    static <T> Gen<T> fresh(Supplier<T> supplier) {
        return r -> supplier.get();
    }

    /** One of the generators, uniformly. */
    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        return r -> gens[r.nextInt(gens.length)].next(r);
    }

    /** {@code common} nine times in ten, {@code rare} otherwise. */
    static <T> Gen<T> mostly(Gen<? extends T> common, Gen<? extends T> rare) {
        return r -> r.nextInt(10) < 9 ? common.next(r) : rare.next(r);
    }

    static Gen<Long> longs() {
        return Random::nextLong;
    }

    /** Up to {@code maxLength} characters from anywhere in the Basic Multilingual Plane, control characters included. */
    static Gen<String> strings(int maxLength) {
        return r -> {
            int n = r.nextInt(maxLength + 1);
            StringBuilder b = new StringBuilder(n);
            for (int i = 0; i < n; i++) {
                int kind = r.nextInt(4);
                b.append((char)
                        (kind == 0
                                ? r.nextInt(0x20)
                                : kind == 1
                                        ? 0x20 + r.nextInt(0x5f)
                                        : kind == 2 ? 0xa0 + r.nextInt(0x2000) : 0x4e00 + r.nextInt(0x5000)));
            }
            return b.toString();
        };
    }
}
