package io.seckill.payment;

import io.seckill.config.SeckillProperties;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.payment.channel.PaysimChannel;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The payment channel adapter named by {@code seckill.payment.provider}. */
@Configuration
class PaymentConfig {

    @Bean
    PaymentChannel paymentChannel(SeckillProperties props) {
        SeckillProperties.Payment p = props.payment();
        if (p.callbackSecret() == null) {
            throw new IllegalArgumentException("seckill.payment.callback-secret: is required (at least 32 characters, "
                    + "the secret the channel signs its callbacks with)");
        }
        return new PaysimChannel(
                p.channelUrl(), p.channelTimeout(), p.callbackSecret(), p.callbackWindow(), Clock.systemUTC());
    }
}
