package io.seckill.redis;

import java.time.Duration;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.seckill.config.SeckillProperties;

/** One Lettuce client and one multiplexed connection per instance (Lettuce connections are thread-safe). */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

    @Bean(destroyMethod = "shutdown")
    RedisClient redisClient(SeckillProperties props) {
        RedisClient client = RedisClient.create(RedisURI.create(props.redisUri()));
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2)))
                .build());
        return client;
    }

    @Bean(destroyMethod = "close")
    StatefulRedisConnection<String, String> redisConnection(RedisClient client) {
        return client.connect();
    }
}
