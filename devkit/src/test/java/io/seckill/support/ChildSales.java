package io.seckill.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Sales on instances run as child processes ({@link io.seckill.engines.AppProcess}), set up through their APIs. */
public final class ChildSales {

    private ChildSales() {}

    /** An operator's token the child instances accept (they share the tests' admin secret). */
    public static String admin() {
        return Tokens.admin(IntegrationTest.ADMIN_SECRET, "test", Duration.ofMinutes(30));
    }

    /**
     * A one-SKU sale that began five seconds ago, created and warmed through {@code creator} and opened through
     * {@code opener} (the same instance or another).
     */
    public static void open(
            SaleClient creator, SaleClient opener, long activityId, int stock, int paymentTimeoutSeconds, int buckets)
            throws Exception {
        open(creator, opener, activityId, stock, paymentTimeoutSeconds, buckets, Duration.ofHours(2));
    }

    /** As {@link #open(SaleClient, SaleClient, long, int, int, int)}, for a sale that ends {@code length} from now. */
    public static void open(
            SaleClient creator,
            SaleClient opener,
            long activityId,
            int stock,
            int paymentTimeoutSeconds,
            int buckets,
            Duration length)
            throws Exception {
        Instant now = Instant.now();
        SaleClient.Response created = creator.post(
                "/api/v1/admin/activities",
                admin(),
                Map.of(
                        "activity_id",
                        activityId,
                        "name",
                        "sale " + activityId,
                        "starts_at",
                        now.minusSeconds(5).toString(),
                        "ends_at",
                        now.plus(length).toString(),
                        "business_deadline_seconds",
                        300,
                        "payment_timeout_seconds",
                        paymentTimeoutSeconds,
                        "skus",
                        List.of(Map.of(
                                "sku_id", 1, "price", new BigDecimal("10.50"), "stock", stock, "buckets", buckets))));
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        SaleClient.Response warmed = creator.post("/api/v1/admin/activities/" + activityId + "/warm", admin(), null);
        assertThat(warmed.status()).as(warmed.body().toString()).isEqualTo(200);
        SaleClient.Response opened = opener.post("/api/v1/admin/activities/" + activityId + "/open", admin(), null);
        assertThat(opened.status()).as(opened.body().toString()).isEqualTo(200);
    }
}
