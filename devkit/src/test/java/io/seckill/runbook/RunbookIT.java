package io.seckill.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.payment.PaymentTestBase;
import io.seckill.redis.SkuSlot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunbookIT extends PaymentTestBase {

    @Test
    @DisplayName("runbook end to end: freeze -> inspect -> repair -> invariants pass -> audit rows present")
    void runbook() throws Exception {
        long activityId = openSale(2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        placeOrder(activityId, 1, 1);
        // a failover lost buyer 1's one-attempt mark: Redis admits their second attempt, PostgreSQL refuses it
        redis.sync().del(slot.user(1));
        SaleClient.Response queued = reserve(1, activityId, 1);
        awaitSettled(activityId, 2);
        UUID rejected = UUID.fromString((String) queued.body().get("reservation_id"));
        String messageId = jdbc.queryForObject(
                "SELECT message_id::text FROM inventory_reservation WHERE reservation_id = ?", String.class, rejected);
        assertThat(redis.sync().get(slot.stock())).isEqualTo("0");

        SaleClient.Response frozen = client().post(
                        "/api/v1/admin/freeze/" + messageId,
                        adminToken(),
                        Map.of("reason", "incident 42: checking a rejected reservation"));
        assertThat(frozen.status()).as(frozen.body().toString()).isEqualTo(200);
        assertThat(status(rejected)).isEqualTo("MANUAL_REVIEW");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM compensation_task WHERE reservation_id = ?", String.class, rejected))
                .isEqualTo("MANUAL");
        compensation.runOnce("automation-while-frozen");
        assertThat(redis.sync().get(slot.stock()))
                .as("automation leaves a frozen object alone")
                .isEqualTo("0");

        SaleClient.Response inspected = client().get("/api/v1/admin/inspect/" + rejected, adminToken());
        assertThat(inspected.status()).isEqualTo(200);
        assertThat(inspected.body()).containsKeys(Inspection.AUTHORITY.toArray(String[]::new));
        assertThat(inspected.body().get("authority_order")).isEqualTo(Inspection.AUTHORITY);
        assertThat(inspected.body().get("ids").toString()).contains(rejected.toString(), messageId);
        assertThat(inspected.body().get("manual_holds").toString()).contains("incident 42");
        assertThat(inspected.body().get("4 redis").toString()).contains("reservation_hash");

        assertThat(client().post("/api/v1/admin/repair/" + rejected, adminToken(), Map.of("action", "compensate"))
                        .body())
                .containsEntry("field", "reason");
        assertThat(client().post(
                                "/api/v1/admin/repair/" + rejected,
                                adminToken(),
                                Map.of("action", "reboot", "reason", "x"))
                        .body())
                .containsEntry("field", "action");
        assertThat(client().get("/api/v1/admin/inspect/" + UUID.randomUUID(), adminToken())
                        .status())
                .isEqualTo(404);

        Map<String, String> body =
                Map.of("action", "compensate", "reason", "incident 42: PostgreSQL rejected it, give it back");
        SaleClient.Response repaired = client().post("/api/v1/admin/repair/" + rejected, adminToken(), body);
        assertThat(repaired.status()).as(repaired.body().toString()).isEqualTo(200);
        assertThat(repaired.body()).containsEntry("result", "DONE");
        assertThat(status(rejected)).isEqualTo("COMPENSATED");
        assertThat(redis.sync().get(slot.stock())).isEqualTo("1");
        SaleClient.Response again = client().post("/api/v1/admin/repair/" + rejected, adminToken(), body);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("after").toString()).contains("reservation_status=COMPENSATED");
        assertThat(redis.sync().get(slot.stock()))
                .as("the same repair twice restores once")
                .isEqualTo("1");

        SaleClient.Response inv = client().get("/api/v1/admin/invariants?activity_id=" + activityId, adminToken());
        assertThat(inv.body()).as(inv.body().toString()).containsEntry("pass", true);
        assertInvariants(activityId, true);

        List<Map<String, Object>> audit = jdbc.queryForList(
                "SELECT action, operator, reason, before IS NOT NULL AS b, "
                        + "after IS NOT NULL AS a FROM audit_log WHERE object_id = ? ORDER BY audit_id",
                rejected.toString());
        assertThat(audit)
                .extracting(m -> m.get("action"))
                .containsExactly("FREEZE", "REPAIR_COMPENSATE", "REPAIR_COMPENSATE");
        assertThat(audit).allSatisfy(m -> {
            assertThat(m.get("operator")).isEqualTo("local/test");
            assertThat((String) m.get("reason")).startsWith("incident 42");
            assertThat(m.get("b")).isEqualTo(true);
            assertThat(m.get("a")).isEqualTo(true);
        });
    }

    @Test
    @DisplayName("adjust-stock: applied to PostgreSQL and Redis together through the ledger, once per adjustment id")
    void adjustStock() throws Exception {
        long activityId = openSale(10);
        String path = "/api/v1/admin/activities/" + activityId + "/skus/1/adjust-stock";
        String id = UUID.randomUUID().toString();
        Map<String, Object> plus = Map.of("delta", 5, "reason", "supplier delivered 5 more", "adjustment_id", id);
        assertThat(client().post(path, adminToken(), plus).status()).isEqualTo(200);
        assertThat(client().post(path, adminToken(), plus).status())
                .as("the same adjustment again")
                .isEqualTo(200);
        assertStock(activityId, 15);
        SaleClient.Response refused = client().post(path, adminToken(), Map.of("delta", -20, "reason", "too many"));
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body()).containsEntry("field", "delta");
        assertStock(activityId, 15);
        assertThat(client().post(path, adminToken(), Map.of("delta", -3, "reason", "3 damaged"))
                        .status())
                .isEqualTo(200);
        assertStock(activityId, 12);
        assertThat(client().post(path, adminToken(), Map.of("delta", 1)).body()).containsEntry("field", "reason");
        assertThat(count(
                        "SELECT count(*) FROM inventory_ledger WHERE activity_id = ? AND change_type = 'ADJUST'",
                        activityId))
                .isEqualTo(2);
        placeOrder(activityId, 1, 5);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("close-out: admission stops, the pipeline drains, a final reconcile and report, the keys expire")
    void closeOut() throws Exception {
        long activityId = openSale(5);
        for (long u = 1; u <= 3; u++) {
            placeOrder(activityId, 1, u);
        }
        UUID paid = jdbc.queryForObject(
                "SELECT order_id FROM orders WHERE activity_id = ? AND user_id = 1", UUID.class, activityId);
        UUID payment = startPayment(1, paid);
        sim.pay(payment, false);
        deliverCallback(payment);
        SaleClient.Response r = client().post(
                        "/api/v1/admin/activities/" + activityId + "/close-out",
                        adminToken(),
                        Map.of("reason", "sale over"));
        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        assertThat(r.body()).containsEntry("drained", true).containsEntry("invariants_pass", true);
        assertThat(r.body().get("orders").toString()).contains("PAID=1", "CREATED=2");
        assertThat(reserve(9, activityId, 1).code()).isEqualTo("ACTIVITY_NOT_OPEN");
        assertThat(redis.sync().pttl(SkuSlot.single(activityId, 1).stock())).isPositive();
        // nothing the sale wrote outlives it: reservation hashes (orders paid and unpaid), request maps, user marks
        List<String> keys = redis.sync().keys(SkuSlot.salePattern(activityId));
        assertThat(keys).as("the sale's keys").anyMatch(k -> k.contains(":reservation:"));
        assertThat(keys)
                .allSatisfy(k -> assertThat(redis.sync().pttl(k))
                        .as(k + " expires, within the retention")
                        .isPositive()
                        .isLessThanOrEqualTo(Duration.ofDays(7).toMillis()));
        assertThat(((Number) r.body().get("redis_keys_expiring")).longValue()).isPositive();
        assertThat(count(
                        "SELECT count(*) FROM activity WHERE activity_id = ? AND closed_out_at IS NOT NULL",
                        activityId))
                .isOne();
        assertThat(count(
                        "SELECT count(*) FROM audit_log WHERE action = 'CLOSE_OUT' AND object_id = ?",
                        Long.toString(activityId)))
                .isOne();
    }

    @Test
    @DisplayName("close-out with one SKU whose Redis cannot be read: answered, the SKU named, nothing closed out or "
            + "expired; once it reads again the close-out goes through")
    void closeOutWithAnUnreadableSku() throws Exception {
        long activityId = openSale(2, 2);
        placeOrder(activityId, 2, 1);
        awaitSettled(activityId, 1);
        SkuSlot broken = SkuSlot.single(activityId, 1);
        String stock = redis.sync().get(broken.stock());
        redis.sync().del(broken.stock());
        redis.sync().hset(broken.stock(), "not", "a number");
        String path = "/api/v1/admin/activities/" + activityId + "/close-out?drain_seconds=0";
        try {
            SaleClient.Response r = client().post(path, adminToken(), Map.of("reason", "sale over"));
            assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
            assertThat(r.body()).containsEntry("drained", false).containsEntry("invariants_pass", false);
            assertThat(r.body().get("still_in_flight").toString()).contains("sku 1 unreadable");
            assertThat(r.body().get("inventory_unreadable").toString()).contains("sku 1: unreadable");
            assertThat(r.body().get("inventory").toString())
                    .contains("sku_id=2")
                    .doesNotContain("sku_id=1");
            assertThat(count(
                            "SELECT count(*) FROM activity WHERE activity_id = ? AND closed_out_at IS NOT NULL",
                            activityId))
                    .isZero();
            assertThat(redis.sync().pttl(SkuSlot.single(activityId, 2).stock()))
                    .as("no key given an expiry")
                    .isEqualTo(-1);
        } finally {
            redis.sync().del(broken.stock());
            redis.sync().set(broken.stock(), stock);
        }
        SaleClient.Response again = client().post(path, adminToken(), Map.of("reason", "sale over"));
        assertThat(again.body()).as(again.body().toString()).containsEntry("drained", true);
        assertThat(count(
                        "SELECT count(*) FROM activity WHERE activity_id = ? AND closed_out_at IS NOT NULL",
                        activityId))
                .isOne();
    }

    @Test
    @DisplayName("the CLI: invariants exits 0 on a healthy sale and 1 on a violation; inspect and reconcile answer")
    void commandLine(@TempDir Path dir) throws Exception {
        String[] target = operator(dir);
        long activityId = openSale(3);
        UUID order = placeOrder(activityId, 1, 77);
        awaitSettled(activityId, 1);
        assertThat(cli("invariants", target, "--activity", Long.toString(activityId)))
                .isZero();
        assertThat(cli("inspect", target, order.toString())).isZero();
        assertThat(cli("reconcile", target, "--activity", Long.toString(activityId), "--watermark-seconds", "0"))
                .isZero();
        assertThat(cli("adjust-stock", target, Long.toString(activityId), "1", "-1", "--reason", "one unit damaged"))
                .isZero();
        assertThat(activities.inventoryView(activityId).getFirst().pg().initial())
                .isEqualTo(2);
        assertThat(cli("inspect", target, UUID.randomUUID().toString()))
                .as("unknown id")
                .isEqualTo(2);
        redis.sync().incr(SkuSlot.single(activityId, 1).stock());
        assertThat(cli("invariants", target, "--activity", Long.toString(activityId)))
                .as("a violated invariant")
                .isOne();
        redis.sync().decr(SkuSlot.single(activityId, 1).stock());
    }

    @Test
    @DisplayName("a sale's life from the command line: create from options, warm, open, sell, inventory, close; a "
            + "malformed SKU and a refused create exit 2 with nothing written")
    void saleFromTheCommandLine(@TempDir Path dir) throws Exception {
        String[] target = operator(dir);
        long activityId = 880_000_000L + (System.nanoTime() & 0xffffff);
        String id = Long.toString(activityId);
        String[] create = {
            "--activity",
            id,
            "--name",
            "cli sale",
            "--starts-at",
            Instant.now().minusSeconds(60).toString(),
            "--ends-at",
            Instant.now().plusSeconds(3600).toString(),
            "--sku",
            "1:9.90:3:2"
        };
        assertThat(cli("sale", new String[] {"create"}, concat(target, create))).isZero();
        assertThat(cli("sale", new String[] {"create"}, concat(target, create)))
                .as("the same id again: refused")
                .isEqualTo(2);
        String[] badSku = create.clone();
        badSku[badSku.length - 1] = "1:nine:3";
        assertThat(cli("sale", new String[] {"create"}, concat(target, badSku))).isEqualTo(2);
        assertThat(cli("sale", new String[] {"warm"}, concat(target, id))).isZero();
        assertThat(cli("sale", new String[] {"open"}, concat(target, id))).isZero();
        assertThat(reserve(5, activityId, 1).code()).isEqualTo("QUEUED");
        awaitSettled(activityId, 1);
        assertThat(cli("sale", new String[] {"inventory"}, concat(target, id))).isZero();
        var v = activities.inventoryView(activityId).getFirst();
        assertThat(v.pg().buckets()).isEqualTo(2);
        assertThat(v.pg().initial()).isEqualTo(3);
        assertThat(v.pg().occupied()).isEqualTo(1);
        assertThat(cli("sale", new String[] {"close"}, concat(target, id))).isZero();
        assertThat(reserve(6, activityId, 1).code()).isNotEqualTo("QUEUED");
        assertThat(count("SELECT count(*) FROM activity WHERE activity_id = ?", activityId))
                .isOne();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("seckill sale create --file sale.yaml: the admin API's body in YAML, instants unquoted")
    void saleFromAYamlFile(@TempDir Path dir) throws Exception {
        long activityId = 881_000_000L + (System.nanoTime() & 0xffffff);
        Path file = Files.writeString(
                dir.resolve("sale.yaml"),
                String.join(
                        "\n",
                        "activity_id: " + activityId,
                        "name: yaml sale",
                        "starts_at: " + Instant.now().minusSeconds(60),
                        "ends_at: " + Instant.now().plusSeconds(3600),
                        "business_deadline_seconds: 300",
                        "payment_timeout_seconds: 900",
                        "skus:",
                        "  - {sku_id: 1, price: 9.90, stock: 5, buckets: 2}",
                        ""));
        assertThat(cli("sale", new String[] {"create"}, concat(operator(dir), "--file", file.toString())))
                .isZero();
        var v = activities.inventoryView(activityId).getFirst();
        assertThat(v.pg().initial()).isEqualTo(5);
        assertThat(v.pg().buckets()).isEqualTo(2);
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** The runbook commands' target: this instance's operator listener, a token minted from the secret in a file. */
    private String[] operator(Path dir) throws Exception {
        Path adminSecret = Files.writeString(dir.resolve("admin-secret"), ADMIN_SECRET);
        return new String[] {
            "--url",
            "http://127.0.0.1:" + operatorPlane.port(),
            "--admin-secret-file",
            adminSecret.toString(),
            "--operator",
            "cli-test"
        };
    }

    private static int cli(String command, String[] target, String... args) {
        String[] all = new String[1 + target.length + args.length];
        all[0] = command;
        System.arraycopy(target, 0, all, 1, target.length);
        System.arraycopy(args, 0, all, 1 + target.length, args.length);
        return io.seckill.cli.SeckillCli.commandLine().execute(all);
    }

    private void assertStock(long activityId, int initial) {
        var v = activities.inventoryView(activityId).getFirst();
        assertThat(v.pg().initial()).isEqualTo(initial);
        assertThat(v.redis().initial()).isEqualTo(initial);
        assertThat(v.pg().available()).isEqualTo(initial - v.pg().occupied() - v.pg().sold());
        assertThat(v.redis().stock()).isEqualTo(v.pg().available());
    }

    private String status(UUID reservationId) {
        return jdbc.queryForObject(
                "SELECT status FROM inventory_reservation WHERE reservation_id = ?", String.class, reservationId);
    }
}
