package io.seckill.bench;

import java.nio.file.Path;

/**
 * Where a run's CPU went, read at its start and its end: this JVM (the application under test),
 * PostgreSQL, the broker's JVM, and the whole machine - busy, and how much of its cores stood idle. A
 * run that is slower than the CPU it used explains is waiting, not working.
 */
record CpuSplit(long appNanos, long postgresNanos, long brokerNanos, long machineBusyNanos, long machineTotalNanos) {

    static CpuSplit now(Path postgresData, long brokerPid) {
        long[] machine = CpuMeter.machineNanos();
        return new CpuSplit(
                CpuMeter.selfNanos(),
                CpuMeter.postgresNanos(postgresData),
                brokerPid < 0 ? -1 : CpuMeter.processNanos(brokerPid),
                machine == null ? -1 : machine[0],
                machine == null ? -1 : machine[1]);
    }

    /** Per operation since {@code before}, over {@code n} operations. */
    String since(CpuSplit before, long n) {
        double per = Math.max(1, n) * 1000.0;
        double total = machineTotalNanos - before.machineTotalNanos;
        double idle = total - (machineBusyNanos - before.machineBusyNanos);
        return String.format(
                "CPU per order: application %s, PostgreSQL %s, broker %s; the machine %s busy, its cores idle %s",
                micros(appNanos, before.appNanos, per),
                micros(postgresNanos, before.postgresNanos, per),
                micros(brokerNanos, before.brokerNanos, per),
                micros(machineBusyNanos, before.machineBusyNanos, per),
                machineTotalNanos < 0 || before.machineTotalNanos < 0 || total <= 0
                        ? "?"
                        : String.format("%.0f%% of the time", 100 * idle / total));
    }

    /** The whole machine's busy CPU per operation since {@code before}, in microseconds; NaN when not readable. */
    double machineMicrosSince(CpuSplit before, long n) {
        return machineBusyNanos < 0 || before.machineBusyNanos < 0
                ? Double.NaN
                : (machineBusyNanos - before.machineBusyNanos) / 1000.0 / Math.max(1, n);
    }

    private static String micros(long now, long before, double per) {
        return now < 0 || before < 0 ? "?" : String.format("%.0f us", (now - before) / per);
    }
}
