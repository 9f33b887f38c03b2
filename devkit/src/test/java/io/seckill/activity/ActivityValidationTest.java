package io.seckill.activity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.refusal.Refusal;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ActivityValidationTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private static ActivityService.NewActivity activity(List<ActivityService.NewSku> skus) {
        return new ActivityService.NewActivity(7L, "sale", T0, T0.plusSeconds(60), 300, 900, skus);
    }

    @Test
    @DisplayName("each bad field of a new activity is named in the refusal")
    void namesTheField() {
        assertField(new ActivityService.NewActivity(null, "s", T0, T0.plusSeconds(1), 1, 1, List.of()), "activity_id");
        assertField(new ActivityService.NewActivity(7L, " ", T0, T0.plusSeconds(1), 1, 1, List.of()), "name");
        assertField(new ActivityService.NewActivity(7L, "s", T0, T0, 1, 1, List.of()), "ends_at");
        assertField(
                new ActivityService.NewActivity(7L, "s", T0, T0.plusSeconds(1), 0, 1, List.of()),
                "business_deadline_seconds");
        assertField(
                new ActivityService.NewActivity(7L, "s", T0, T0.plusSeconds(1), 1, null, List.of()),
                "payment_timeout_seconds");
        assertField(activity(List.of()), "skus");
        assertField(
                activity(List.of(
                        new ActivityService.NewSku(1L, BigDecimal.ONE, 5, 1),
                        new ActivityService.NewSku(1L, BigDecimal.ONE, 5, 1))),
                "skus[1].sku_id");
        assertField(activity(List.of(new ActivityService.NewSku(1L, new BigDecimal("1.001"), 5, 1))), "skus[0].price");
        assertField(activity(List.of(new ActivityService.NewSku(1L, BigDecimal.ONE, -1, 1))), "skus[0].stock");
        assertField(activity(List.of(new ActivityService.NewSku(1L, BigDecimal.ONE, 5, 0))), "skus[0].buckets");
        Activity ok =
                ActivityService.validate(activity(List.of(new ActivityService.NewSku(1L, BigDecimal.TEN, 5, null))));
        assertThat(ok.skus())
                .singleElement()
                .satisfies(s -> assertThat(s.buckets()).isEqualTo(1));
    }

    @Test
    @DisplayName("stock split over buckets adds up exactly")
    void shares() {
        for (int total : new int[] {0, 1, 7, 100, 101}) {
            for (int n : new int[] {1, 2, 3, 8}) {
                int sum = 0;
                for (int b = 0; b < n; b++) {
                    sum += ActivityService.share(total, b, n);
                }
                assertThat(sum).isEqualTo(total);
            }
        }
    }

    private static void assertField(ActivityService.NewActivity in, String field) {
        assertThatThrownBy(() -> ActivityService.validate(in))
                .isInstanceOfSatisfying(
                        Refusal.class, e -> assertThat(e.field()).isEqualTo(field));
    }
}
