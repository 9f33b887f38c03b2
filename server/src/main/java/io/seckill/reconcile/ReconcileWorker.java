package io.seckill.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.MqClients;
import io.seckill.worker.PollingWorker;
import org.springframework.stereotype.Component;

/**
 * The {@code reconciler} role: every {@code seckill.reconcile.interval}, whichever instance holds
 * the reconcile lease runs one reconciliation of every live sale.
 */
@Component
class ReconcileWorker extends PollingWorker {

    private final Reconciler reconciler;
    private final ReconcileRepository repo;
    private final SeckillProperties.Reconcile cfg;
    private final String owner = MqClients.instanceName("reconciler");

    ReconcileWorker(Reconciler reconciler, ReconcileRepository repo, SeckillProperties props, MeterRegistry meters) {
        super("reconciler", "reconcile.worker", props.reconcile().interval(), props, meters);
        this.reconciler = reconciler;
        this.repo = repo;
        this.cfg = props.reconcile();
    }

    @Override
    protected int runPass() {
        if (repo.takeLease(owner, cfg.lease())) {
            reconciler.run(null, cfg.watermark());
        }
        return 0;
    }
}
