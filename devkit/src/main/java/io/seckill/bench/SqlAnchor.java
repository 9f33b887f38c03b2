package io.seckill.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The minimal order batch (an inbox row, an order row with the one-per-user unique, an outbox row
 * and the conditional stock UPDATE, set-based) run with {@code pgbench} on the bench's own
 * PostgreSQL, in a database of its own: the least an order can cost there, beside the consumer's
 * batch SQL.
 */
final class SqlAnchor {

    /** What pgbench measured, and the WAL it wrote per order. */
    record Result(double ordersPerSecond, WalMeter.Cost wal) {}

    private SqlAnchor() {}

    /** Empty when pgbench is not installed (Debian: postgresql-client). */
    static Optional<Result> run(
            String host, int port, String jdbcUrl, Path dataDirectory, int clients, int batch, int seconds)
            throws Exception {
        Optional<Path> pgbench = ExternalLoad.tool("pgbench");
        if (pgbench.isEmpty()) {
            return Optional.empty();
        }
        BenchRepository db = new BenchRepository(jdbcUrl);
        db.freshDatabase("anchor", resource("anchor-schema.sql"));
        db.settle();
        Path script = Files.createTempFile("seckill-anchor", ".sql");
        Files.writeString(script, resource("anchor-order-batch.sql"));
        WalMeter wal = new WalMeter(jdbcUrl, dataDirectory);
        WalMeter.Reading before = wal.read();
        ProcessBuilder pb = new ProcessBuilder(
                        pgbench.get().toString(),
                        "-h",
                        host,
                        "-p",
                        Integer.toString(port),
                        "-U",
                        "postgres",
                        "-n",
                        "-M",
                        "prepared",
                        "-f",
                        script.toString(),
                        "-D",
                        "nsku=1",
                        "-D",
                        "batch=" + batch,
                        "-c",
                        Integer.toString(clients),
                        "-j",
                        "2",
                        "-T",
                        Integer.toString(seconds),
                        "anchor")
                .redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", "postgres");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds + 120L, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("pgbench failed: " + out);
        }
        Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(out);
        Matcher tx = Pattern.compile("number of transactions actually processed: (\\d+)")
                .matcher(out);
        if (!tps.find() || !tx.find()) {
            throw new IllegalStateException("unexpected pgbench output: " + out);
        }
        WalMeter.Cost cost = wal.read().since(before, Long.parseLong(tx.group(1)) * batch);
        Files.deleteIfExists(script);
        // its hundreds of thousands of rows would keep autovacuum busy inside the runs after it
        db.dropDatabase("anchor");
        return Optional.of(new Result(Double.parseDouble(tps.group(1)) * batch, cost));
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = SqlAnchor.class.getResourceAsStream("/bench/" + name)) {
            if (in == null) {
                throw new IllegalStateException("bench resource missing: " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
