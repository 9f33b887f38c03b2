package io.seckill.api;

import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Handlers take the verified caller as a parameter ({@link Caller.Buyer}, {@link Caller.Operator}). */
@Configuration(proxyBeanMethods = false)
class WebConfig implements WebMvcConfigurer {

    private final BuyerCallLimit buyerCalls;

    WebConfig(BuyerCallLimit buyerCalls) {
        this.buyerCalls = buyerCalls;
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new Caller.Resolver(buyerCalls));
    }
}
