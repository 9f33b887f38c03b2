package io.seckill.reconcile;

import java.util.Map;
import java.util.TreeMap;

/** What one reconciliation run did (repairs by rule) and found (anomalies by type), counted as the rules go. */
final class Tally {

    final Map<String, Integer> repairs = new TreeMap<>();
    final Map<String, Integer> anomalies = new TreeMap<>();

    void repaired(String rule) {
        repaired(rule, 1);
    }

    void repaired(String rule, int n) {
        if (n > 0) {
            repairs.merge(rule, n, Integer::sum);
        }
    }

    /** Counts {@code rule} when the repair task ran now (not when an earlier run had done it). */
    void repaired(Repairs.Run run, String rule) {
        if (run == Repairs.Run.DONE) {
            repaired(rule);
        }
    }

    void found(String type) {
        anomalies.merge(type, 1, Integer::sum);
    }

    /** Every repair counted so far: a rule that repaired something this run makes the SKU's books still in motion. */
    int repairCount() {
        return repairs.values().stream().mapToInt(Integer::intValue).sum();
    }
}
