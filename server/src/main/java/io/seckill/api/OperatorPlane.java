package io.seckill.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.apache.catalina.connector.Connector;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The operator's plane - the admin API and the dashboard page - on a listener of its own:
 * {@code seckill.admin.port} (8083; 0 picks a free one) on {@code seckill.admin.address} (loopback unless
 * configured, so that it is reached through a port-forward, a VPN or the operators' network only). The
 * buyers' port answers {@code 404} for the operator's paths, and the operator's listener for everything
 * else: a leaked buyer token, a hostile client or a misrouted ingress on the buyers' side never meets the
 * operator's API at all, and each side can be exposed, limited and watched apart.
 *
 * <p>The listener is a second connector of the same Tomcat, with the same protocol and connector settings
 * (timeouts, header deadline, limits) as the buyers' port.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
public class OperatorPlane implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

    /** The paths of the operator's plane. */
    static final String ADMIN_PREFIX = "/api/v1/admin/";

    private static final String DASHBOARD_PAGE = "/dashboard.html";

    private final int port;
    private final String address;
    private volatile Connector connector;

    OperatorPlane(
            @Value("${seckill.admin.port:8083}") int port,
            @Value("${seckill.admin.address:127.0.0.1}") String address,
            @Value("${server.port:8080}") int apiPort) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("seckill.admin.port: must be 0..65535, got " + port);
        }
        if (port != 0 && port == apiPort) {
            throw new IllegalArgumentException("seckill.admin.port: must differ from server.port (" + apiPort
                    + "): the operator's plane has a " + "listener of its own");
        }
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("seckill.admin.address: is required (127.0.0.1 by default)");
        }
        this.port = port;
        this.address = address;
    }

    /** Whether {@code uri} belongs to the operator's plane. */
    static boolean isOperatorPath(String uri) {
        return uri.startsWith(ADMIN_PREFIX) || uri.equals("/api/v1/admin") || uri.equals(DASHBOARD_PAGE);
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        Connector c = new Connector(factory.getProtocol());
        c.setPort(port);
        c.setProperty("address", address);
        for (TomcatConnectorCustomizer customizer : factory.getConnectorCustomizers()) {
            customizer.customize(c);
        }
        factory.addAdditionalConnectors(c);
        this.connector = c;
    }

    /** The port the operator's listener is bound to (the one picked when configured 0); -1 before it is. */
    public int port() {
        Connector c = connector;
        return c == null ? -1 : c.getLocalPort();
    }

    /** Each listener answers only its own side's paths; the other side's are not found there. */
    @Component
    @Order(Ordered.HIGHEST_PRECEDENCE + 10)
    static class Split extends OncePerRequestFilter {

        private final OperatorPlane plane;

        Split(OperatorPlane plane) {
            this.plane = plane;
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            boolean operatorListener = request.getLocalPort() == plane.port();
            if (operatorListener != isOperatorPath(request.getRequestURI())) {
                Problems.write(
                        request,
                        response,
                        HttpStatus.NOT_FOUND,
                        "NOT_FOUND",
                        operatorListener
                                ? "the operator's listener serves the admin API and the dashboard only"
                                : "no such path");
                return;
            }
            chain.doFilter(request, response);
        }
    }
}
