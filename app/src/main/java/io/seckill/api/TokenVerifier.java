package io.seckill.api;

import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import io.seckill.config.SeckillProperties;
import io.seckill.refusal.Refusal;

/**
 * Verifies bearer JWTs (HS256, Nimbus JOSE+JWT): buyers' tokens with the user secret ({@code sub}
 * = positive numeric user id), the admin credential with its own secret and scope {@code seckill:admin}.
 * {@code exp} is required; {@code exp}, {@code nbf} and {@code iat} are judged with
 * {@code seckill.jwt.leeway} of clock skew.
 */
@Component
public class TokenVerifier {

    public static final String ADMIN_SCOPE = "seckill:admin";
    private static final int MAX_TOKEN_CHARS = 8192;

    private static final java.util.regex.Pattern USER_ID = java.util.regex.Pattern.compile("[1-9][0-9]{0,17}");

    private final JWSVerifier userVerifier;
    private final JWSVerifier adminVerifier;
    private final Duration leeway;
    private final Clock clock;

    @Autowired
    public TokenVerifier(SeckillProperties props) throws JOSEException {
        this(props, Clock.systemUTC());
    }

    public TokenVerifier(SeckillProperties props, Clock clock) throws JOSEException {
        this.userVerifier = new MACVerifier(props.jwt().userSecret());
        this.adminVerifier = new MACVerifier(props.jwt().adminSecret());
        this.leeway = props.jwt().leeway();
        this.clock = clock;
    }

    /** The caller's user id (a positive integer in {@code sub}), or 401. */
    public long user(String authorization) {
        JWTClaimsSet claims = verify(authorization, userVerifier);
        String sub = claims.getSubject();
        if (!USER_ID.matcher(sub).matches()) {
            throw Refusal.unauthenticated("token subject is not a user id (a positive integer)");
        }
        return Long.parseLong(sub);
    }

    /** The admin operator's name, or 401/403. */
    public String admin(String authorization) {
        JWTClaimsSet claims = verify(authorization, adminVerifier);
        Object scope = claims.getClaim("scope");
        boolean ok = scope instanceof String s ? List.of(s.split(" ")).contains(ADMIN_SCOPE)
                : scope instanceof List<?> l && l.contains(ADMIN_SCOPE);
        if (!ok) {
            throw Refusal.forbidden("admin scope required");
        }
        return claims.getSubject() == null ? "admin" : claims.getSubject();
    }

    private JWTClaimsSet verify(String authorization, JWSVerifier verifier) {
        if (authorization == null || authorization.length() < 8 || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw Refusal.unauthenticated("missing bearer token");
        }
        if (authorization.length() > MAX_TOKEN_CHARS) {
            throw Refusal.unauthenticated("token too long");
        }
        try {
            SignedJWT jwt = SignedJWT.parse(authorization.substring(7).trim());
            if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier)) {
                throw Refusal.unauthenticated("invalid token signature");
            }
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            Instant now = clock.instant();
            Date exp = claims.getExpirationTime();
            if (exp == null || exp.toInstant().plus(leeway).isBefore(now)) {
                throw Refusal.unauthenticated("token expired or without expiry");
            }
            Date nbf = claims.getNotBeforeTime();
            if (nbf != null && nbf.toInstant().minus(leeway).isAfter(now)) {
                throw Refusal.unauthenticated("token not valid yet (nbf)");
            }
            Date iat = claims.getIssueTime();
            if (iat != null && iat.toInstant().minus(leeway).isAfter(now)) {
                throw Refusal.unauthenticated("token issued in the future (iat)");
            }
            if (claims.getSubject() == null || claims.getSubject().isBlank()) {
                throw Refusal.unauthenticated("token has no subject");
            }
            return claims;
        } catch (ParseException | JOSEException | IllegalStateException e) {
            throw Refusal.unauthenticated("malformed token");
        }
    }
}
