package io.seckill.api;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.JWTProcessor;
import io.seckill.config.SeckillProperties;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * A buyer's user id from a bearer token, for the admission entry, which needs nothing else of it. It
 * throws as a {@link JwtDecoder} does: {@link BadJwtException} for a token that is refused,
 * {@link JwtException} for one that cannot be judged now.
 */
@FunctionalInterface
public interface BuyerTokens {

    long userId(String token);

    /** The user id through a decoder: its subject, which the buyers' rules hold to a positive long. */
    static BuyerTokens of(JwtDecoder decoder) {
        return token -> Long.parseLong(decoder.decode(token).getSubject());
    }

    /**
     * The shared-secret check without Spring's layer around Nimbus: the token parsed once as a signed JWT (Nimbus's
     * {@code JWTParser}, which Spring's decoder calls, parses the header twice) and handed to the very processor the
     * buyers' decoder runs (algorithm, key, signature), then the buyers' rules judged on Nimbus's claims as they
     * come - no claim conversion, no {@code Jwt} built, no validator chain. Those were a quarter of the entry's
     * token check. The rules are the buyers' decoder's ({@link TokenDecoders}), and {@code BuyerTokensTest} holds
     * the two to the same verdict and user id over every combination of header, key and claims it makes.
     */
    static BuyerTokens secret(JWTProcessor<SecurityContext> processor, SeckillProperties.Jwt cfg, Clock clock) {
        return new Secret(processor, cfg, clock);
    }

    /** See {@link #secret}. */
    final class Secret implements BuyerTokens {

        private static final String REFUSED = "An error occurred while attempting to decode the Jwt: ";

        private final JWTProcessor<SecurityContext> processor;
        private final Duration leeway;
        private final Clock clock;
        private final String issuer;
        private final String audience;
        private final ClaimTypes types = new ClaimTypes();

        private Secret(JWTProcessor<SecurityContext> processor, SeckillProperties.Jwt cfg, Clock clock) {
            this.processor = processor;
            this.leeway = cfg.leeway();
            this.clock = clock;
            this.issuer = cfg.issuer() == null || cfg.issuer().isBlank() ? null : cfg.issuer();
            this.audience = cfg.audience() == null || cfg.audience().isBlank() ? null : cfg.audience();
        }

        @Override
        public long userId(String token) {
            SignedJWT jwt;
            try {
                jwt = SignedJWT.parse(token);
            } catch (ParseException e) {
                throw new BadJwtException(REFUSED + "Malformed token", e);
            }
            JWTClaimsSet claims;
            try {
                claims = processor.process(jwt, null);
            } catch (BadJOSEException e) {
                throw new BadJwtException(REFUSED + e.getMessage(), e);
            } catch (JOSEException e) {
                throw new JwtException(REFUSED + e.getMessage(), e);
            }
            return judged(claims);
        }

        /** The buyers' rules ({@link TokenDecoders}): exp required; exp, nbf and iat with the leeway; iss, aud, sub. */
        private long judged(JWTClaimsSet claims) {
            Instant exp = instant(claims.getExpirationTime());
            Instant iat = instant(claims.getIssueTime());
            if (exp == null) {
                throw refused("exp is required");
            }
            // a token issued at or after its own expiry is refused as Spring's token type refuses to hold it
            if (iat != null && !exp.isAfter(iat)) {
                throw refused("expiresAt must be after issuedAt");
            }
            Instant now = clock.instant();
            if (now.minus(leeway).isAfter(exp)) {
                throw refused("Jwt expired at " + exp);
            }
            Instant nbf = instant(claims.getNotBeforeTime());
            if (nbf != null && now.plus(leeway).isBefore(nbf)) {
                throw refused("Jwt used before " + nbf);
            }
            if (iat != null && iat.minus(leeway).isAfter(now)) {
                throw refused("token issued in the future (iat)");
            }
            if (issuer != null) {
                String iss = claims.getIssuer();
                if (iss == null || !issuer.equals(types.issuer(iss).toString())) {
                    throw refused("The iss claim is not valid");
                }
            }
            if (audience != null) {
                List<String> aud = claims.getAudience();
                if (aud == null || !aud.contains(audience)) {
                    throw refused("The aud claim is not valid");
                }
            }
            String sub = claims.getSubject();
            if (!TokenDecoders.isUserId(sub)) {
                throw refused("The sub claim is not valid");
            }
            return Long.parseLong(sub);
        }

        private static Instant instant(Date d) {
            return d == null ? null : d.toInstant();
        }

        private static BadJwtException refused(String why) {
            return new BadJwtException(REFUSED + why);
        }
    }
}
