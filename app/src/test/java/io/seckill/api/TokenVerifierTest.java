package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.Map;
import java.util.function.UnaryOperator;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.seckill.config.SeckillProperties;
import io.seckill.refusal.Refusal;

/** Buyers' tokens: a positive user id, and exp/nbf/iat judged with the configured leeway on an injected clock. */
class TokenVerifierTest {

    private static final String USER = "user-secret-0123456789abcdef0123456789ab";
    private static final String ADMIN = "admin-secret-0123456789abcdef0123456789a";
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    private final TokenVerifier verifier = verifier(Duration.ofSeconds(30));

    @Test
    @DisplayName("sub must be a positive integer: -3, 0, +5, 007x, 1e3 and 20 digits are refused")
    void positiveUserId() {
        assertThat(verifier.user(bearer(c -> c.subject("42")))).isEqualTo(42);
        for (String sub : new String[] {"-3", "0", "+5", "007x", "1e3", "12345678901234567890", " 7", ""}) {
            assertThatThrownBy(() -> verifier.user(bearer(c -> c.subject(sub)))).as(sub)
                    .isInstanceOfSatisfying(Refusal.class, e -> assertThat(e.kind()).isEqualTo(Refusal.Kind.UNAUTHENTICATED));
        }
    }

    @Test
    @DisplayName("exp, nbf and iat are judged with the leeway: inside it accepted, beyond it 401")
    void timeClaimsWithLeeway() {
        assertThat(verifier.user(bearer(c -> c.expirationTime(at(-20))))).as("expired within leeway").isEqualTo(7);
        assertThat(verifier.user(bearer(c -> c.notBeforeTime(at(20))))).as("nbf within leeway").isEqualTo(7);
        assertThat(verifier.user(bearer(c -> c.issueTime(at(20))))).as("iat within leeway").isEqualTo(7);
        assertRefused(bearer(c -> c.expirationTime(at(-40))), "expired");
        assertRefused(bearer(c -> c.expirationTime(null)), "expiry");
        assertRefused(bearer(c -> c.notBeforeTime(at(40))), "nbf");
        assertRefused(bearer(c -> c.issueTime(at(3600))), "iat");
        assertThat(verifier(Duration.ZERO).user(bearer(c -> c.notBeforeTime(at(0))))).as("nbf = now").isEqualTo(7);
    }

    @Test
    @DisplayName("malformed headers are 401, never a server error: wrong scheme, no token, garbage, too long, alg none")
    void malformed() {
        for (String h : new String[] {null, "", "Bearer", "Bearer ", "Basic abc", "Bearer a.b.c", "Bearer " + "x".repeat(9000),
                "Bearer eyJhbGciOiJub25lIn0.e30."}) {
            assertThatThrownBy(() -> verifier.user(h)).isInstanceOf(Refusal.class);
        }
        assertRefused(sign(USER + "x", c -> c), "signature");
    }

    private void assertRefused(String header, String detail) {
        assertThatThrownBy(() -> verifier.user(header)).isInstanceOfSatisfying(Refusal.class, e -> {
            assertThat(e.kind()).isEqualTo(Refusal.Kind.UNAUTHENTICATED);
            assertThat(e.getMessage()).contains(detail);
        });
    }

    private static TokenVerifier verifier(Duration leeway) {
        SeckillProperties props = new SeckillProperties(java.util.Set.of("api"), "redis://x", new SeckillProperties.Ids(
                Map.of(1, USER)), new SeckillProperties.Jwt(USER, ADMIN, leeway), null, null, null, null, null, null, null,
                null);
        try {
            return new TokenVerifier(props, Clock.fixed(NOW, ZoneOffset.UTC));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Date at(long secondsFromNow) {
        return Date.from(NOW.plusSeconds(secondsFromNow));
    }

    private static String bearer(UnaryOperator<JWTClaimsSet.Builder> claims) {
        return sign(USER, claims);
    }

    private static String sign(String secret, UnaryOperator<JWTClaimsSet.Builder> claims) {
        try {
            JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().subject("7").expirationTime(at(600));
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.apply(b).build());
            jwt.sign(new MACSigner(secret));
            return "Bearer " + jwt.serialize();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
