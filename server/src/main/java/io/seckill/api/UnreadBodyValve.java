package io.seckill.api;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * A request answered without its body read - refused before it (a bad token, an unknown path, a
 * limit), or cut off by {@link BodyReadFilter} at its deadline or bound - has its connection closed
 * after the answer, unless the rest of the body is already in the server's buffer.
 *
 * <p>Tomcat's default is to keep the connection and read ("swallow") the rest of the body on the
 * request thread, waiting up to the connection timeout between the bytes; a client that sends a body
 * slowly would hold that thread after its request had been refused.
 */
class UnreadBodyValve extends ValveBase {

    /**
     * Set on a request whose body had not all arrived when it reached the application: a refusal
     * written before the body is read says the connection closes ({@link Problems#write}).
     */
    static final String BODY_STILL_COMING = UnreadBodyValve.class.getName() + ".bodyStillComing";

    UnreadBodyValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        boolean coming = !request.isFinished() && bodyStillComing(request);
        if (coming) {
            request.setAttribute(BODY_STILL_COMING, Boolean.TRUE);
        } else {
            request.removeAttribute(BODY_STILL_COMING);
        }
        getNext().invoke(request, response);
        if (!coming || request.isAsyncStarted() || request.isFinished()) {
            return;
        }
        if (!response.isCommitted()) {
            response.setHeader("Connection", "close");
        }
        request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        // Tomcat marks a request whose input it stops reading as failed, and would then send it through
        // the error page; the answer is already written (by the time an asynchronous read's answer is, the
        // response is closed, and the error page's write fails), so no error report is due
        response.setErrorReported();
    }

    /** Whether part of the request's body has not reached the server yet. */
    private static boolean bodyStillComing(Request request) {
        org.apache.coyote.Request coyote = request.getCoyoteRequest();
        long length = coyote.getContentLengthLong();
        if (length < 0) {
            return true;
        }
        coyote.action(ActionCode.AVAILABLE, Boolean.TRUE);
        return coyote.getAvailable() < length - coyote.getBytesRead();
    }

    /** Puts the valve on the application's context. */
    @Component
    static class Install implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addContextValves(new UnreadBodyValve());
        }
    }
}
