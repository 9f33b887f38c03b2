package io.seckill.api;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/** Issues tokens for the demo, the load generator and tests (a real deployment uses its identity provider). */
public final class Tokens {

    private Tokens() {}

    public static String user(String secret, long userId, Duration ttl) {
        return sign(secret, new JWTClaimsSet.Builder().subject(Long.toString(userId)), ttl);
    }

    /** An operator's token with every operator scope ({@code seckill:admin}). */
    public static String admin(String secret, String operator, Duration ttl) {
        return operator(secret, operator, TokenDecoders.ADMIN_SCOPE, ttl);
    }

    /** An operator's token with {@code scope}: {@code seckill:view} for a dashboard, {@code seckill:operate}, ... */
    public static String operator(String secret, String operator, String scope, Duration ttl) {
        return sign(secret, new JWTClaimsSet.Builder().subject(operator).claim("scope", scope), ttl);
    }

    private static String sign(String secret, JWTClaimsSet.Builder claims, Duration ttl) {
        try {
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.HS256)
                            .keyID(TokenDecoders.keyId(secret))
                            .build(),
                    claims.expirationTime(Date.from(Instant.now().plus(ttl))).build());
            jwt.sign(new MACSigner(secret));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalArgumentException("cannot sign token: " + e.getMessage(), e);
        }
    }
}
