package io.seckill.redis;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.seckill.config.SeckillProperties;

/** One Lettuce client and one multiplexed connection per instance (Lettuce connections are thread-safe). */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

    @Bean(destroyMethod = "close")
    Redis redisConnection(SeckillProperties props) {
        return Redis.connect(props.redisUri(), props.redisCluster());
    }
}
