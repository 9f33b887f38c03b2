package io.seckill.api;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.proc.SingleKeyJWSKeySelector;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.JWTProcessor;
import io.seckill.config.SeckillProperties;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.web.client.RestTemplate;

/**
 * The two token decoders: buyers' and the admin credential's. With shared secrets each has its own
 * HS256 key, so a buyer's token can never pass as an admin's; with an identity provider both read
 * its JWKS and the admin decoder requires the admin scope. Both require {@code exp} and judge
 * {@code exp}, {@code nbf} and {@code iat} with the configured leeway; a buyer's {@code sub} must be
 * a positive integer (the user id).
 */
public final class TokenDecoders implements AutoCloseable {

    /** The token types an identity provider's access tokens carry (RFC 9068, and the common plain one). */
    static final List<String> ACCESS_TOKEN_TYPES = List.of("at+jwt", "application/at+jwt", "jwt");

    /** Every operator operation: {@link #VIEW_SCOPE} and {@link #OPERATE_SCOPE} together. */
    public static final String ADMIN_SCOPE = "seckill:admin";
    /** The operator's reads: the dashboard, inspect, invariants, the inventory view. */
    public static final String VIEW_SCOPE = "seckill:view";
    /** The operator's changes, reads included. */
    public static final String OPERATE_SCOPE = "seckill:operate";

    private final JwtDecoder buyers;
    private final JwtDecoder admins;
    private final BuyerTokens buyerIds;
    private final KeySetCache keySet;

    public TokenDecoders(SeckillProperties.Jwt cfg, Clock clock) {
        if (cfg.identityProvider()) {
            SimpleClientHttpRequestFactory http = new SimpleClientHttpRequestFactory();
            http.setConnectTimeout(Duration.ofSeconds(2));
            http.setReadTimeout(Duration.ofSeconds(3));
            this.keySet = new KeySetCache(cfg.jwksUri(), new RestTemplate(http), clock);
            this.buyers = jwks(keySet, buyerRules(cfg, clock));
            this.admins = jwks(keySet, adminRules(cfg, clock));
            this.buyerIds = BuyerTokens.of(buyers);
        } else {
            this.keySet = null;
            JWTProcessor<SecurityContext> buyerKeys = secretProcessor(cfg.userSecret(), cfg.previousUserSecret());
            this.buyers = withRules(new NimbusJwtDecoder(buyerKeys), buyerRules(cfg, clock));
            this.admins = withRules(
                    new NimbusJwtDecoder(secretProcessor(cfg.adminSecret(), cfg.previousAdminSecret())),
                    adminRules(cfg, clock));
            this.buyerIds = BuyerTokens.secret(buyerKeys, cfg, clock);
        }
    }

    private TokenDecoders(JwtDecoder buyers, JwtDecoder admins) {
        this.buyers = buyers;
        this.admins = admins;
        this.buyerIds = BuyerTokens.of(buyers);
        this.keySet = null;
    }

    /** Decoders made elsewhere (a part built by hand, an embedding application's own). */
    public static TokenDecoders of(JwtDecoder buyers, JwtDecoder admins) {
        return new TokenDecoders(buyers, admins);
    }

    /**
     * The decoders of an instance without the api role, which holds no JWT secret: every token is refused (its
     * buyers' and operators' paths answer 401), nothing is verified against a secret it does not have.
     */
    public static TokenDecoders refusingAll() {
        JwtDecoder refuse = token -> {
            throw new BadJwtException("this instance serves neither the buyers' nor the operators' API (no api role)");
        };
        return new TokenDecoders(refuse, refuse);
    }

    /** Stops refreshing the identity provider's key set. */
    @Override
    public void close() {
        if (keySet != null) {
            keySet.close();
        }
    }

    public JwtDecoder buyers() {
        return buyers;
    }

    public JwtDecoder admins() {
        return admins;
    }

    /**
     * A buyer's user id under the buyers' rules, for the admission entry: with shared secrets without Spring's layer
     * ({@link BuyerTokens#secret}), with an identity provider through {@link #buyers()}.
     */
    public BuyerTokens buyerIds() {
        return buyerIds;
    }

    /** The token's scopes, from a space-separated {@code scope} claim or a list ({@code scope} or {@code scp}). */
    public static Collection<String> scopes(Jwt jwt) {
        for (String claim : List.of("scope", "scp")) {
            Object v = jwt.getClaims().get(claim);
            if (v instanceof String s) {
                return List.of(s.split(" "));
            }
            if (v instanceof Collection<?> c) {
                return c.stream().map(String::valueOf).toList();
            }
        }
        return List.of();
    }

    /**
     * HS256 under {@code secret}, and under {@code previous} too while a rotation lets the tokens it signed live: a
     * token naming its key ({@code kid}, {@link #keyId}) is checked against that key only, one without a kid against
     * both. The current secret's check takes the fast path ({@link HmacVerifiers}). No token type is required, and
     * the claims are left to the rules ({@link #withRules}, {@link BuyerTokens#secret}).
     */
    private static JWTProcessor<SecurityContext> secretProcessor(String secret, String previous) {
        SecretKeySpec key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        HmacVerifiers verifiers = new HmacVerifiers(key);
        DefaultJWTProcessor<SecurityContext> p = new DefaultJWTProcessor<>();
        if (previous == null) {
            p.setJWSKeySelector(new SingleKeyJWSKeySelector<>(JWSAlgorithm.HS256, key));
        } else {
            HmacVerifiers.check(new SecretKeySpec(previous.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            JWKSource<SecurityContext> keys =
                    new ImmutableJWKSet<>(new JWKSet(List.of(octet(secret), octet(previous))));
            p.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.HS256, keys));
        }
        p.setJWSVerifierFactory(verifiers);
        p.setJWSTypeVerifier((type, context) -> {});
        p.setJWTClaimsSetVerifier((claims, context) -> {});
        return p;
    }

    private static JWK octet(String secret) {
        return new OctetSequenceKey.Builder(secret.getBytes(StandardCharsets.UTF_8))
                .keyID(keyId(secret))
                .algorithm(JWSAlgorithm.HS256)
                .build();
    }

    /**
     * The key id of an HS256 secret: a fingerprint (the first 16 hex digits of a SHA-256 over a label and the secret)
     * that names the key in a token's header without telling anything of it.
     */
    public static String keyId(String secret) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest(("seckill-jwt-kid|" + secret).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * The provider's key set, in hand ({@link KeySetCache}: fetched ahead on a thread of its own, never on a
     * request's); the token's {@code typ} must be an access token's.
     */
    private static NimbusJwtDecoder jwks(KeySetCache keys, OAuth2TokenValidator<Jwt> rules) {
        return withRules(
                NimbusJwtDecoder.withJwkSource(keys)
                        .jwsAlgorithms(a -> {
                            a.add(SignatureAlgorithm.RS256);
                            a.add(SignatureAlgorithm.ES256);
                            a.add(SignatureAlgorithm.PS256);
                        })
                        .jwtProcessorCustomizer(p -> p.setJWSTypeVerifier((type, context) -> {
                            if (type == null
                                    || !ACCESS_TOKEN_TYPES.contains(
                                            type.getType().toLowerCase(Locale.ROOT))) {
                                throw new BadJOSEException("token type (typ) " + type + " is not an access token's");
                            }
                        }))
                        .build(),
                rules);
    }

    /** The rules, over the claims as the token carries them, typed by {@link ClaimTypes}. */
    private static NimbusJwtDecoder withRules(NimbusJwtDecoder d, OAuth2TokenValidator<Jwt> rules) {
        d.setClaimSetConverter(new ClaimTypes()::convert);
        d.setJwtValidator(rules);
        return d;
    }

    private static OAuth2TokenValidator<Jwt> buyerRules(SeckillProperties.Jwt cfg, Clock clock) {
        List<OAuth2TokenValidator<Jwt>> rules = common(cfg, clock);
        rules.add(new JwtClaimValidator<String>(JwtClaimNames.SUB, TokenDecoders::isUserId));
        return new DelegatingOAuth2TokenValidator<>(rules);
    }

    private static OAuth2TokenValidator<Jwt> adminRules(SeckillProperties.Jwt cfg, Clock clock) {
        List<OAuth2TokenValidator<Jwt>> rules = common(cfg, clock);
        rules.add(new JwtClaimValidator<String>(JwtClaimNames.SUB, sub -> sub != null && !sub.isBlank()));
        return new DelegatingOAuth2TokenValidator<>(rules);
    }

    /** A positive user id without sign or leading zero, at most 18 digits (a long); checked on every buyer's call. */
    static boolean isUserId(String sub) {
        if (sub == null || sub.isEmpty() || sub.length() > 18 || sub.charAt(0) == '0') {
            return false;
        }
        for (int i = 0; i < sub.length(); i++) {
            char c = sub.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static List<OAuth2TokenValidator<Jwt>> common(SeckillProperties.Jwt cfg, Clock clock) {
        List<OAuth2TokenValidator<Jwt>> rules = new ArrayList<>();
        JwtTimestampValidator times = new JwtTimestampValidator(cfg.leeway());
        times.setAllowEmptyExpiryClaim(false);
        times.setClock(clock);
        rules.add(times);
        rules.add(new JwtClaimValidator<Instant>(JwtClaimNames.EXP, Objects::nonNull));
        rules.add(jwt -> {
            Instant iat = jwt.getIssuedAt();
            return iat != null && iat.minus(cfg.leeway()).isAfter(clock.instant())
                    ? OAuth2TokenValidatorResult.failure(
                            new OAuth2Error("invalid_token", "token issued in the future (iat)", null))
                    : OAuth2TokenValidatorResult.success();
        });
        if (cfg.issuer() != null && !cfg.issuer().isBlank()) {
            rules.add(new JwtIssuerValidator(cfg.issuer()));
        }
        if (cfg.audience() != null && !cfg.audience().isBlank()) {
            rules.add(new JwtAudienceValidator(cfg.audience()));
        }
        return rules;
    }
}
