package io.seckill.reservation;

import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Units moving between the buckets of a hot SKU (docs/SCALE-OUT.md, "Hot SKU over buckets"). A buyer
 * whose home bucket is empty takes one unit out of another bucket ({@link #takeOne}, the first half)
 * and lands it in the home bucket within the same script that reserves it (reserve.lua, the second
 * half). Between the halves the unit is recorded in its source bucket as in transit; a transfer that
 * stopped there (a crash, a failed call) is landed by the reconciler ({@link #finishStale}). Every
 * landing is made once, under a marker holding the transfer id, so both finishing it cannot count a
 * unit twice.
 */
@Component
public class BucketTransfers {

    private static final Logger log = LoggerFactory.getLogger(BucketTransfers.class);
    private static final LuaScript TRANSFER_OUT = LuaScript.load("transfer_out");
    private static final LuaScript LAND = LuaScript.load("land_transfer");

    private final Redis redis;
    private final Duration markerTtl;
    private final Duration hold;
    private final Counter out;
    private final Counter finished;
    private final MeterRegistry meters;

    BucketTransfers(Redis redis, SeckillProperties props, MeterRegistry meters) {
        this.redis = redis;
        this.markerTtl = props.landingMarkerTtl();
        this.hold = props.admission().soldOutHold();
        this.meters = meters;
        this.out = Counter.builder("reservation.bucket.transfer")
                .description("units taken out of one bucket of a hot SKU for a buyer whose home bucket was empty")
                .register(meters);
        this.finished = Counter.builder("reservation.bucket.transfer.finished")
                .description("transfers that stopped between their halves and were landed by the reconciler")
                .register(meters);
    }

    /** One unit of {@code source} is now in transit to {@code target}: its transfer id; null when the source had none. */
    String takeOne(SkuSlot source, SkuSlot target) {
        String id = UUID.randomUUID().toString();
        List<Object> r = TRANSFER_OUT.run(
                redis,
                new String[] {source.stock(), source.counter(), source.meta(), source.transfers()},
                id,
                Integer.toString(target.bucket()),
                Long.toString(hold.toMillis()));
        if (ScriptReply.of(r).code() != 1) {
            return null;
        }
        out.increment();
        return id;
    }

    /** How long a landing's marker stays (reserve.lua's last argument with a transfer). */
    long markerTtlMillis() {
        return markerTtl.toMillis();
    }

    /**
     * The transfer landed (now or before): its in-transit record in the source goes. The buyer's reservation is
     * made by then, so a source that does not answer now does not fail the call: the record stays, and the
     * reconciler clears it ({@link #finishStale}; the landing's marker says it landed).
     */
    void landed(SkuSlot source, String id) {
        try {
            redis.sync().hdel(source.transfers(), id);
        } catch (RedisException e) {
            meters.counter("reservation.bucket.transfer.unrecorded").increment();
            log.warn(
                    "reservation.transfer_landed_unrecorded transfer_id={} source={} error_class={}: {}; the "
                            + "reconciler clears the in-transit record",
                    id,
                    source.tag(),
                    e.getClass().getName(),
                    e.getMessage());
        }
    }

    /**
     * Lands every transfer out of the SKU's buckets that has been in transit longer than {@code olderThan}
     * (younger ones may still be landing in their buyer's call): how many landed now.
     */
    public int finishStale(Activity a, Activity.Sku sku, Duration olderThan) {
        if (sku.buckets() < 2) {
            return 0;
        }
        int landedNow = 0;
        List<String> time = redis.sync().time();
        long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        for (SkuSlot source : a.slots(sku)) {
            for (Map.Entry<String, String> e :
                    redis.sync().hgetall(source.transfers()).entrySet()) {
                String id = e.getKey();
                long[] value = parse(e.getValue(), sku.buckets());
                if (value == null) {
                    meters.counter("reservation.bucket.transfer.malformed").increment();
                    log.error(
                            "reservation.transfer_malformed activity_id={} sku_id={} bucket={} transfer_id={} value={}",
                            a.activityId(),
                            sku.skuId(),
                            source.bucket(),
                            id,
                            e.getValue());
                    continue;
                }
                if (nowMs - value[1] < olderThan.toMillis()) {
                    continue;
                }
                SkuSlot target = source.sibling((int) value[0]);
                List<Object> r = LAND.run(
                        redis,
                        new String[] {target.stock(), target.counter(), target.meta(), target.transferMarker(id)},
                        id,
                        Long.toString(markerTtl.toMillis()));
                long code = ScriptReply.of(r).code();
                if (code == 0) {
                    meters.counter("reservation.bucket.transfer.unlandable").increment();
                    log.warn(
                            "reservation.transfer_not_landable activity_id={} sku_id={} from_bucket={} to_bucket={} "
                                    + "transfer_id={}: the target bucket is paused or lost its keys; tried again next run",
                            a.activityId(),
                            sku.skuId(),
                            source.bucket(),
                            target.bucket(),
                            id);
                    continue;
                }
                landed(source, id);
                if (code == 1) {
                    landedNow++;
                    finished.increment();
                    log.warn(
                            "reservation.transfer_finished activity_id={} sku_id={} from_bucket={} to_bucket={} transfer_id={}",
                            a.activityId(),
                            sku.skuId(),
                            source.bucket(),
                            target.bucket(),
                            id);
                }
            }
        }
        return landedNow;
    }

    /**
     * Units the SKU's buckets gave up and no other bucket has taken in yet (the target holds no landing
     * marker): PostgreSQL counts them as available, no bucket's stock does.
     */
    public long inTransit(Activity a, Activity.Sku sku) {
        long n = 0;
        for (SkuSlot source : a.slots(sku)) {
            for (Map.Entry<String, String> e :
                    redis.sync().hgetall(source.transfers()).entrySet()) {
                long[] value = parse(e.getValue(), sku.buckets());
                if (value == null) {
                    throw new IllegalStateException("transfer " + e.getKey() + " out of bucket " + source.bucket()
                            + " is unreadable: " + e.getValue());
                }
                if (redis.sync().exists(source.sibling((int) value[0]).transferMarker(e.getKey())) == 0) {
                    n++;
                }
            }
        }
        return n;
    }

    /** A transfer record's {target bucket, taken at ms}, or null when it is not one. */
    private static long[] parse(String raw, int buckets) {
        String[] value = raw.split(":");
        if (value.length != 2
                || !value[0].matches("\\d{1,9}")
                || !value[1].matches("\\d{1,18}")
                || Integer.parseInt(value[0]) >= buckets) {
            return null;
        }
        return new long[] {Long.parseLong(value[0]), Long.parseLong(value[1])};
    }
}
