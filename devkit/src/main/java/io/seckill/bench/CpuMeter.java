package io.seckill.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * CPU time spent by a process, the figure that travels between machines better than requests per
 * second: this JVM's own (the application under test runs in it) from the OperatingSystemMXBean, and
 * another process's (redis-server) from {@code /proc/<pid>/stat} (user + system clock ticks).
 */
final class CpuMeter {

    /** Linux's USER_HZ: /proc reports CPU time in hundredths of a second. */
    private static final long TICKS_PER_SECOND = 100;

    private CpuMeter() {
    }

    /** CPU nanoseconds this JVM has used so far. */
    static long selfNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The pid of the redis-server listening on {@code port}, found by its command line. */
    static Optional<Long> redisPid(int port) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                    return cmd.contains("redis-server") && cmd.contains(Integer.toString(port));
                } catch (IOException e) {
                    return false; // the process ended or is not ours to read
                }
            }).map(p -> Long.parseLong(p.getFileName().toString())).findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** CPU nanoseconds a process has used so far (utime + stime), or -1 when it cannot be read. */
    static long processNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // fields after the command name (which is in parentheses and may contain spaces)
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 1_000_000_000L / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
