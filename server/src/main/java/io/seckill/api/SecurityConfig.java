package io.seckill.api;

import io.seckill.config.SeckillProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
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
import org.springframework.security.oauth2.jwt.Jwt;
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
    /** Reads the operator's plane: the dashboard, inspect, invariants, the inventory view. */
    static final String VIEW = "VIEW";
    /** Changes something: the sale's lifecycle, freeze, repair, adjust, close-out, reconcile, failpoints. */
    static final String OPERATE = "OPERATE";

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
    TokenDecoders tokenDecoders(SeckillProperties props, Clock clock) {
        return props.jwt() == null ? TokenDecoders.refusingAll() : new TokenDecoders(props.jwt(), clock);
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
                .authorizeHttpRequests(a -> a.requestMatchers("/api/v1/admin/failpoints", "/api/v1/admin/failpoints/**")
                        .hasRole(OPERATE)
                        .requestMatchers(HttpMethod.GET, ADMIN_PATHS)
                        .hasRole(VIEW)
                        .requestMatchers(ADMIN_PATHS)
                        .hasRole(OPERATE)
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
        converter.setJwtGrantedAuthoritiesConverter(jwt -> admin ? operatorRoles(jwt) : BUYER_ROLES);
        JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder);
        provider.setJwtAuthenticationConverter(converter);
        return new ProviderManager(provider);
    }

    private static final List<GrantedAuthority> BUYER_ROLES = List.of(new SimpleGrantedAuthority("ROLE_" + BUYER));

    /**
     * An operator token's roles, from its scopes: {@code seckill:view} reads, {@code seckill:operate} reads and
     * changes; {@code seckill:admin} is both (the credential the CLI mints by default, kept for the tools that
     * hold one). A token with none of them is refused on every operator path.
     */
    static List<GrantedAuthority> operatorRoles(Jwt jwt) {
        Collection<String> scopes = TokenDecoders.scopes(jwt);
        List<GrantedAuthority> out = new ArrayList<>(2);
        if (scopes.contains(TokenDecoders.OPERATE_SCOPE) || scopes.contains(TokenDecoders.ADMIN_SCOPE)) {
            out.add(new SimpleGrantedAuthority("ROLE_" + OPERATE));
            out.add(new SimpleGrantedAuthority("ROLE_" + VIEW));
        } else if (scopes.contains(TokenDecoders.VIEW_SCOPE)) {
            out.add(new SimpleGrantedAuthority("ROLE_" + VIEW));
        }
        return out;
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
                request.getRequestURI().startsWith("/api/v1/admin/")
                        ? "this operation needs a token with scope " + TokenDecoders.OPERATE_SCOPE + " (reads: "
                                + TokenDecoders.VIEW_SCOPE + ")"
                        : "not allowed");
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
