package io.seckill.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Calls made from a few threads at once, each timed: what they answered (by a short text, a code say),
 * how many waited a second or more, and how many were answered in under 200 ms.
 */
public record TimedCalls(Map<String, Integer> answers, int waited, int atOnce) {

    /** The {@code i}-th call; its answer as a short text. */
    @FunctionalInterface
    public interface Call {
        String answer(int i) throws Exception;
    }

    /** {@code calls} calls, {@code atOnce} at a time; each must end within a minute. */
    public static TimedCalls run(int calls, int atOnce, Call call) throws Exception {
        Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
        AtomicInteger waited = new AtomicInteger();
        AtomicInteger quick = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(atOnce);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                int n = i;
                running.add(pool.submit(() -> {
                    long t0 = System.nanoTime();
                    String answer = call.answer(n);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    answers.computeIfAbsent(answer, k -> new AtomicInteger()).incrementAndGet();
                    if (ms >= 1000) {
                        waited.incrementAndGet();
                    } else if (ms < 200) {
                        quick.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, Integer> counted = new TreeMap<>();
        answers.forEach((k, v) -> counted.put(k, v.get()));
        return new TimedCalls(counted, waited.get(), quick.get());
    }
}
