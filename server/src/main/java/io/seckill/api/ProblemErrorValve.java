package io.seckill.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

/**
 * The container's own error answers (a request line or header Tomcat will not parse, an encoded
 * slash or NUL in the path, headers over the size limit) as problem documents instead of Tomcat's
 * HTML page: clients of this API read one error shape, whichever layer refused them.
 */
public class ProblemErrorValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        String message = response.getMessage();
        String detail = message == null || message.isBlank()
                ? "the request was refused by the server (" + status + ")"
                : message;
        byte[] body = Problems.json(status, Problems.codeFor(status), detail);
        try {
            response.setContentType(Problems.CONTENT_TYPE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getOutputStream().write(body);
            response.finishResponse();
        } catch (IOException | IllegalStateException e) {
            // the client went away or the response was already closed: nothing more to say to it
            container.getLogger().debug("problem report not written: " + e);
        }
    }
}
