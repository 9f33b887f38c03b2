package io.seckill.reservation;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.seckill.config.SeckillProperties;

@Configuration(proxyBeanMethods = false)
class ReservationConfig {

    @Bean
    ReservationIds reservationIds(SeckillProperties props) {
        return new ReservationIds(props.ids().keys());
    }
}
