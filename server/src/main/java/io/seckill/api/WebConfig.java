package io.seckill.api;

import io.seckill.hold.ManualHolds;
import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Handlers take the verified caller as a parameter; operator calls are audited ({@link Caller.Buyer}, {@link Caller.Operator}). */
@Configuration(proxyBeanMethods = false)
class WebConfig implements WebMvcConfigurer {

    private final BuyerCallLimit buyerCalls;
    private final ManualHolds audit;

    WebConfig(BuyerCallLimit buyerCalls, ManualHolds audit) {
        this.buyerCalls = buyerCalls;
        this.audit = audit;
    }

    /** Every operator call that may change something is audited before it runs ({@link OperatorAudit}). */
    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new OperatorAudit(audit)).addPathPatterns(SecurityConfig.ADMIN_PATHS);
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new Caller.Resolver(buyerCalls));
    }
}
