package io.seckill.reconcile;

import io.seckill.activity.Activity;
import io.seckill.reservation.BucketTransfers;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * Bucket transfers (DESIGN.md §5.4): units taken out of one bucket and not landed in another within the
 * watermark are landed, once each (the landing script keeps a marker that outlives the reconcile horizon).
 */
@Component
class TransferRule {

    private final BucketTransfers transfers;

    TransferRule(BucketTransfers transfers) {
        this.transfers = transfers;
    }

    void apply(Activity a, Activity.Sku sku, Duration watermark, Tally tally) {
        tally.repaired(RepairKind.FINISH_BUCKET_TRANSFER.name(), transfers.finishStale(a, sku, watermark));
    }
}
