package io.seckill.api;

import io.seckill.hold.ManualHolds;
import io.seckill.state.ObjectKind;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpMethod;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Every operator call that may change something - any method but GET and HEAD on the operator's plane -
 * writes its audit row before its handler runs ({@code OPERATOR_CALL}: who, by the verified token's issuer
 * and subject, what, by method, path and query, and from where), and one with its outcome after
 * ({@code OPERATOR_RESULT}: the answer's status). A call whose first row cannot be written (PostgreSQL away) is
 * refused and changes nothing. The operations that change state write their own rows besides, with the
 * object's state before and after.
 */
final class OperatorAudit implements HandlerInterceptor {

    private static final String AUDITED = OperatorAudit.class.getName() + ".audited";

    private final ManualHolds audit;

    OperatorAudit(ManualHolds audit) {
        this.audit = audit;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (!(handler instanceof HandlerMethod)
                || HttpMethod.GET.matches(request.getMethod())
                || HttpMethod.HEAD.matches(request.getMethod())
                || !OperatorPlane.isOperatorPath(request.getRequestURI())) {
            return true;
        }
        String operator = operator();
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("handler", String.valueOf(request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE)));
        evidence.put("query", request.getQueryString() == null ? "" : request.getQueryString());
        evidence.put("remote_address", request.getRemoteAddr());
        audit.audit(operator, "OPERATOR_CALL", ObjectKind.API, call(request), null, null, evidence, "requested");
        request.setAttribute(AUDITED, operator);
        return true;
    }

    @Override
    public void afterCompletion(
            HttpServletRequest request, HttpServletResponse response, Object handler, Exception failure) {
        Object operator = request.getAttribute(AUDITED);
        if (operator == null) {
            return;
        }
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("status", response.getStatus());
        if (failure != null) {
            after.put("error_class", failure.getClass().getName());
        }
        audit.audit(
                operator.toString(), "OPERATOR_RESULT", ObjectKind.API, call(request), null, after, null, "answered");
    }

    private static String call(HttpServletRequest request) {
        return request.getMethod() + " " + request.getRequestURI();
    }

    private static String operator() {
        Authentication auth = SecurityContextHolder.getContext().getAuthentication();
        if (auth instanceof JwtAuthenticationToken token) {
            return Caller.Operator.of(token.getToken()).name();
        }
        throw new IllegalStateException("an operator call without a verified operator token");
    }
}
