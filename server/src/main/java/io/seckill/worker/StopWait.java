package io.seckill.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** How a stopping part waits for its threads: all of them together, one deadline for the lot. */
public final class StopWait {

    private StopWait() {}

    /**
     * Waits for {@code threads} to end, {@code wait} at most for all of them together; returns those still
     * running (every one not waited for when the calling thread is interrupted, its interrupt kept).
     */
    public static List<Thread> join(List<Thread> threads, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        List<Thread> left = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            Thread t = threads.get(i);
            try {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                threads.subList(i, threads.size()).stream()
                        .filter(Thread::isAlive)
                        .forEach(left::add);
                return left;
            }
            if (t.isAlive()) {
                left.add(t);
            }
        }
        return left;
    }
}
