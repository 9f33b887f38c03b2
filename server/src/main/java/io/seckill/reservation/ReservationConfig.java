package io.seckill.reservation;

import io.seckill.config.SeckillProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ReservationConfig {

    @Bean
    ReservationIds reservationIds(SeckillProperties props) {
        return new ReservationIds(props.ids().keys());
    }
}
