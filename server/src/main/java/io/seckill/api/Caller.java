package io.seckill.api;

import org.springframework.core.MethodParameter;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

import io.seckill.refusal.Refusal;

/**
 * Who is calling, as a handler parameter: a {@link Buyer} on the buyer API, an {@link Operator} on
 * the admin API - taken from the token the security filter already verified.
 */
public final class Caller {

    private Caller() {
    }

    /** A buyer: the user id of the token's subject. */
    public record Buyer(long userId) {
    }

    /** An operator: the admin token's subject, written to the audit log. */
    public record Operator(String name) {
    }

    /** Resolves {@link Buyer} and {@link Operator} parameters from the authenticated token. */
    static final class Resolver implements HandlerMethodArgumentResolver {

        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            Class<?> type = parameter.getParameterType();
            return type == Buyer.class || type == Operator.class;
        }

        @Override
        public Object resolveArgument(MethodParameter parameter, ModelAndViewContainer mav, NativeWebRequest request,
                WebDataBinderFactory binders) {
            Authentication auth = SecurityContextHolder.getContext().getAuthentication();
            if (!(auth instanceof JwtAuthenticationToken token)) {
                throw Refusal.unauthenticated("missing bearer token");
            }
            String role = parameter.getParameterType() == Buyer.class ? SecurityConfig.BUYER : SecurityConfig.ADMIN;
            if (token.getAuthorities().stream().noneMatch(a -> a.getAuthority().equals("ROLE_" + role))) {
                throw Refusal.forbidden("not allowed");
            }
            String sub = token.getToken().getSubject();
            return parameter.getParameterType() == Buyer.class ? new Buyer(Long.parseLong(sub)) : new Operator(sub);
        }
    }
}
