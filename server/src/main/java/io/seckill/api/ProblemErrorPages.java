package io.seckill.api;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.catalina.Context;
import org.apache.catalina.Host;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Valve;
import org.apache.catalina.valves.ErrorReportValve;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Every error answer is a problem document, whichever layer produced it: the container's own
 * refusals go through {@link ProblemErrorValve} (in place of Tomcat's HTML report), and errors the
 * servlet container forwards to the error path are answered here (in place of Spring Boot's
 * whitelabel JSON).
 */
final class ProblemErrorPages {

    private static final Logger LOG = LoggerFactory.getLogger(ProblemErrorPages.class);

    private ProblemErrorPages() {}

    /** Puts {@link ProblemErrorValve} on the host, replacing any other error report valve. */
    @Component
    static class TomcatValve implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addContextLifecycleListeners(event -> {
                if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())
                        && event.getLifecycle() instanceof Context context
                        && context.getParent() instanceof Host host) {
                    boolean present = false;
                    for (Valve v : host.getPipeline().getValves()) {
                        if (v instanceof ProblemErrorValve) {
                            present = true;
                        } else if (v instanceof ErrorReportValve) {
                            host.getPipeline().removeValve(v);
                        }
                    }
                    if (!present) {
                        host.getPipeline().addValve(new ProblemErrorValve());
                    }
                }
            });
        }
    }

    /** The error path: what the servlet container forwards an error status to. */
    @RestController
    static class ErrorPath implements ErrorController {
        @RequestMapping("${server.error.path:/error}")
        ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
            Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
            int status = code instanceof Integer i ? i : HttpStatus.INTERNAL_SERVER_ERROR.value();
            Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
            if (status >= 500) {
                Object failure = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
                LOG.error(
                        "request failed before the application " + "uri={} error={}",
                        request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI),
                        message,
                        failure instanceof Throwable t ? t : null);
            }
            String detail =
                    message instanceof String m && !m.isBlank() ? m : "the request was refused (" + status + ")";
            return ResponseEntity.status(status)
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .body(Problems.problem(HttpStatusCode.valueOf(status), Problems.codeFor(status), detail));
        }
    }
}
