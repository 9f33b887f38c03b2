package io.seckill.api;

import io.seckill.config.SeckillProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Authentication and authorization, in one place: Spring Security's OAuth2 resource server checks
 * the bearer token before any handler runs or any body is read. Admin paths take the admin
 * decoder and require the ADMIN authority (the admin scope); the buyer API takes the buyer decoder
 * (BUYER: a token whose subject is a user id); payment callbacks carry their own signature; the
 * rest (health, metrics, unknown paths) is open. Refusals are problem documents like every other.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
class SecurityConfig {

    static final String ADMIN_PATHS = "/api/v1/admin/**";
    static final String BUYER = "BUYER";
    static final String ADMIN = "ADMIN";

    /**
     * No observation per security filter, authentication and authorization: on the admission path
     * they cost more CPU than the token check itself (measured with the bench's profile);
     * {@code http.server.requests} still times every request.
     */
    @Bean
    SecurityObservationSettings securityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    TokenDecoders tokenDecoders(SeckillProperties props) {
        return new TokenDecoders(props.jwt(), Clock.systemUTC());
    }

    @Bean
    SecurityFilterChain api(HttpSecurity http, TokenDecoders decoders) throws Exception {
        AuthenticationManager buyers = manager(decoders.buyers(), false);
        AuthenticationManager admins = manager(decoders.admins(), true);
        AuthenticationManagerResolver<HttpServletRequest> byPath =
                request -> request.getRequestURI().startsWith("/api/v1/admin/") ? admins : buyers;
        http.csrf(AbstractHttpConfigurer::disable)
                .formLogin(AbstractHttpConfigurer::disable)
                .httpBasic(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .requestCache(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .authorizeHttpRequests(a -> a.requestMatchers(ADMIN_PATHS)
                        .hasRole(ADMIN)
                        .requestMatchers("/api/v1/payments/callbacks/**")
                        .permitAll()
                        .requestMatchers("/api/v1/**")
                        .hasRole(BUYER)
                        .anyRequest()
                        .permitAll())
                .oauth2ResourceServer(o -> o.authenticationManagerResolver(byPath)
                        .authenticationEntryPoint(unauthorized())
                        .accessDeniedHandler(forbidden()))
                .exceptionHandling(
                        e -> e.authenticationEntryPoint(unauthorized()).accessDeniedHandler(forbidden()));
        return http.build();
    }

    /** A request the firewall refuses (a malformed or hostile path or parameter) is a 400 problem, not a 500. */
    @Bean
    RequestRejectedHandler requestRejected() {
        return (request, response, e) -> write(
                request, response, HttpStatus.BAD_REQUEST, "INVALID_REQUEST", "request refused: " + e.getMessage());
    }

    private static AuthenticationManager manager(JwtDecoder decoder, boolean admin) {
        JwtAuthenticationConverter converter = new JwtAuthenticationConverter();
        converter.setJwtGrantedAuthoritiesConverter(jwt -> {
            List<GrantedAuthority> out = new java.util.ArrayList<>();
            if (!admin) {
                out.add(new SimpleGrantedAuthority("ROLE_" + BUYER));
            } else if (TokenDecoders.scopes(jwt).contains(TokenDecoders.ADMIN_SCOPE)) {
                out.add(new SimpleGrantedAuthority("ROLE_" + ADMIN));
            }
            return out;
        });
        JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder);
        provider.setJwtAuthenticationConverter(converter);
        return new ProviderManager(provider);
    }

    private static AuthenticationEntryPoint unauthorized() {
        return (request, response, e) -> write(request, response, HttpStatus.UNAUTHORIZED, "UNAUTHORIZED", detail(e));
    }

    private static AccessDeniedHandler forbidden() {
        return (request, response, e) -> write(
                request,
                response,
                HttpStatus.FORBIDDEN,
                "FORBIDDEN",
                request.getRequestURI().startsWith("/api/v1/admin/") ? "admin scope required" : "not allowed");
    }

    private static String detail(AuthenticationException e) {
        return e.getMessage() == null || e.getMessage().startsWith("Full authentication")
                ? "missing bearer token"
                : e.getMessage();
    }

    private static void write(
            HttpServletRequest request, HttpServletResponse response, HttpStatus status, String code, String detail)
            throws IOException {
        if (!response.isCommitted()) {
            if (status == HttpStatus.UNAUTHORIZED) {
                response.setHeader("WWW-Authenticate", "Bearer");
            }
            Problems.write(request, response, status, code, detail);
        }
    }
}
