package io.seckill.redis;

import io.seckill.config.SeckillProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** One Lettuce client and one multiplexed connection per instance (Lettuce connections are thread-safe). */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

    /** Refuses a Redis that may evict keys to make room ({@link RedisMemory#requireNoEviction}). */
    @Bean(destroyMethod = "close")
    Redis redisConnection(SeckillProperties props) {
        Redis redis = Redis.connect(props.redisUri(), props.redisCluster());
        try {
            RedisMemory.requireNoEviction(redis);
        } catch (RuntimeException e) {
            try {
                redis.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return redis;
    }
}
