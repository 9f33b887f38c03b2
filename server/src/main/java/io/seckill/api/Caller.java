package io.seckill.api;

import io.seckill.refusal.Refusal;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.MethodParameter;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Who is calling, as a handler parameter: a {@link Buyer} on the buyer API, an {@link Operator} on
 * the admin API - taken from the token the security filter already verified.
 */
public final class Caller {

    private Caller() {}

    /** A buyer: the user id of the token's subject. */
    public record Buyer(long userId) {}

    /**
     * An operator, as the audit log names them: the verified token's issuer and subject ({@code local} for the
     * engine's own HS256 credential), so that no one names themselves into another issuer's operator.
     */
    public record Operator(String name) {
        static Operator of(Jwt token) {
            String issuer = token.getClaimAsString("iss");
            issuer = issuer == null || issuer.isBlank() ? "local" : issuer;
            return new Operator(issuer + "/" + token.getSubject());
        }
    }

    /**
     * On a buyer handler whose calls are capped by a limiter of their own (the reserve call): the
     * buyer's share of the rest of the API ({@link BuyerCallLimit}) does not count it.
     */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    public @interface OwnRateLimit {}

    /**
     * Resolves {@link Buyer} and {@link Operator} parameters from the authenticated token; a buyer's
     * call is counted against {@link BuyerCallLimit} here, before any later parameter reads the body.
     */
    static final class Resolver implements HandlerMethodArgumentResolver {

        private final BuyerCallLimit buyerCalls;

        Resolver(BuyerCallLimit buyerCalls) {
            this.buyerCalls = buyerCalls;
        }

        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            Class<?> type = parameter.getParameterType();
            return type == Buyer.class || type == Operator.class;
        }

        @Override
        public Object resolveArgument(
                MethodParameter parameter,
                ModelAndViewContainer mav,
                NativeWebRequest request,
                WebDataBinderFactory binders) {
            Authentication auth = SecurityContextHolder.getContext().getAuthentication();
            if (!(auth instanceof JwtAuthenticationToken token)) {
                throw Refusal.unauthenticated("missing bearer token");
            }
            String role = parameter.getParameterType() == Buyer.class ? SecurityConfig.BUYER : SecurityConfig.VIEW;
            if (token.getAuthorities().stream().noneMatch(a -> a.getAuthority().equals("ROLE_" + role))) {
                throw Refusal.forbidden("not allowed");
            }
            if (parameter.getParameterType() == Operator.class) {
                return Operator.of(token.getToken());
            }
            String sub = token.getToken().getSubject();
            Buyer buyer = new Buyer(Long.parseLong(sub));
            if (!parameter.hasMethodAnnotation(OwnRateLimit.class)) {
                buyerCalls.acquire(buyer.userId());
            }
            return buyer;
        }
    }
}
