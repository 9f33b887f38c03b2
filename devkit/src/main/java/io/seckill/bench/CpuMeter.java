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

    private CpuMeter() {}

    /** CPU nanoseconds this JVM has used so far. */
    static long selfNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The pid of the redis-server listening on {@code port}, found by its command line. */
    static Optional<Long> redisPid(int port) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> {
                        try {
                            String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                            return cmd.contains("redis-server") && cmd.contains(Integer.toString(port));
                        } catch (IOException e) {
                            return false; // the process ended or is not ours to read
                        }
                    })
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** CPU nanoseconds a process has used so far (utime + stime), or -1 when it cannot be read. */
    static long processNanos(long pid) {
        String[] f = stat(pid);
        return f == null ? -1 : ticks(f, 11, 12);
    }

    /**
     * CPU nanoseconds of a PostgreSQL server so far: the postmaster (with the backends that have
     * ended, which the kernel adds to their parent's children time) and every live backend.
     * -1 when it cannot be read.
     */
    static long postgresNanos(Path dataDirectory) {
        try {
            long postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                    .get(0)
                    .trim());
            String[] own = stat(postmaster);
            if (own == null) {
                return -1;
            }
            long total = ticks(own, 11, 12) + ticks(own, 13, 14);
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                for (Path p : procs.toList()) {
                    String name = p.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit)) {
                        continue;
                    }
                    String[] f = stat(Long.parseLong(name));
                    if (f != null && Long.parseLong(f[1]) == postmaster) {
                        total += ticks(f, 11, 12);
                    }
                }
            }
            return total;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The whole machine's CPU so far, in nanoseconds summed over its cores: {@code [busy, total]} from
     * the first line of {@code /proc/stat} (idle and iowait are not busy); null when it cannot be read.
     */
    static long[] machineNanos() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            // user nice system idle iowait irq softirq steal (guest time is already in user)
            for (int i = 1; i <= Math.min(8, f.length - 1); i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            long ns = 1_000_000_000L / TICKS_PER_SECOND;
            return new long[] {(total - idle) * ns, total * ns};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The fields of /proc/PID/stat after the command name (in parentheses, may contain spaces); null if gone. */
    private static String[] stat(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        } catch (IOException | RuntimeException e) {
            return null; // the process ended between the listing and the read
        }
    }

    private static long ticks(String[] f, int a, int b) {
        return (Long.parseLong(f[a]) + Long.parseLong(f[b])) * 1_000_000_000L / TICKS_PER_SECOND;
    }
}
