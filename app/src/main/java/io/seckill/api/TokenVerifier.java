package io.seckill.api;

import java.text.ParseException;
import java.util.Date;
import java.util.List;

import org.springframework.stereotype.Component;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import io.seckill.config.SeckillProperties;

/**
 * Verifies bearer JWTs (HS256, Nimbus JOSE+JWT): buyers' tokens with the user secret ({@code sub}
 * = numeric user id), the admin credential with its own secret and scope {@code seckill:admin}.
 */
@Component
public class TokenVerifier {

    public static final String ADMIN_SCOPE = "seckill:admin";

    private final JWSVerifier userVerifier;
    private final JWSVerifier adminVerifier;

    public TokenVerifier(SeckillProperties props) throws JOSEException {
        this.userVerifier = new MACVerifier(props.jwt().userSecret());
        this.adminVerifier = new MACVerifier(props.jwt().adminSecret());
    }

    /** The caller's user id, or 401. */
    public long user(String authorization) {
        JWTClaimsSet claims = verify(authorization, userVerifier);
        try {
            return Long.parseLong(claims.getSubject());
        } catch (NumberFormatException e) {
            throw ApiException.unauthorized("token subject is not a user id");
        }
    }

    /** The admin operator's name, or 401/403. */
    public String admin(String authorization) {
        JWTClaimsSet claims = verify(authorization, adminVerifier);
        Object scope = claims.getClaim("scope");
        boolean ok = scope instanceof String s ? List.of(s.split(" ")).contains(ADMIN_SCOPE)
                : scope instanceof List<?> l && l.contains(ADMIN_SCOPE);
        if (!ok) {
            throw new ApiException(org.springframework.http.HttpStatus.FORBIDDEN, "FORBIDDEN", "admin scope required");
        }
        return claims.getSubject() == null ? "admin" : claims.getSubject();
    }

    private static JWTClaimsSet verify(String authorization, JWSVerifier verifier) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ApiException.unauthorized("missing bearer token");
        }
        try {
            SignedJWT jwt = SignedJWT.parse(authorization.substring(7).trim());
            if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier)) {
                throw ApiException.unauthorized("invalid token signature");
            }
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            Date exp = claims.getExpirationTime();
            if (exp == null || exp.before(new Date())) {
                throw ApiException.unauthorized("token expired or without expiry");
            }
            if (claims.getSubject() == null) {
                throw ApiException.unauthorized("token has no subject");
            }
            return claims;
        } catch (ParseException | JOSEException e) {
            throw ApiException.unauthorized("malformed token");
        }
    }
}
