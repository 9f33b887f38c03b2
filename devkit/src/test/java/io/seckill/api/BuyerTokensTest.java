package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.Payload;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.seckill.config.SeckillProperties;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * The admission entry's buyer check ({@link BuyerTokens#secret}) against the buyers' decoder the API port runs:
 * the same verdict - accepted with the same user id, refused, or not judged now - for every token made here, over
 * headers, keys and claims combined at random and the malformed and oddly typed ones made by hand, under two
 * configurations (one secret and a wide leeway; a rotation with an issuer, an audience and no leeway).
 */
class BuyerTokensTest {

    private static final String USER = "user-secret-0123456789abcdef0123456789ab";
    private static final String PREVIOUS = "previous-user-secret-0123456789abcdef0123";
    private static final String ADMIN = "admin-secret-0123456789abcdef0123456789a";
    private static final String STRANGER = "stranger-secret-0123456789abcdef01234567";
    private static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private static final SeckillProperties.Jwt ONE_SECRET =
            new SeckillProperties.Jwt(USER, ADMIN, null, null, null, null, null, Duration.ofSeconds(30));
    private static final SeckillProperties.Jwt ROTATION =
            new SeckillProperties.Jwt(USER, ADMIN, null, "https://idp.test", "seckill", PREVIOUS, null, Duration.ZERO);

    private static final String[] SUBJECTS = {
        "42", "1", "0", "-3", "+5", "007", "1e3", "12a", "123456789012345678", "1234567890123456789", "", null
    };
    private static final Long[] TIMES = {null, -3_600L, -40L, -31L, -30L, -20L, -1L, 0L, 1L, 20L, 31L, 600L};
    private static final String[] ISSUERS = {
        null, "https://idp.test", "https://idp.test/", "HTTPS://idp.test", "https://other.test", "idp", ""
    };
    private static final List<List<String>> AUDIENCES =
            List.of(List.of(), List.of("seckill"), List.of("x", "seckill"), List.of("x"), List.of("SECKILL"));

    private final RSAKey rsa = rsa();

    /** How a token was judged: the user id, or the kind of refusal. */
    private record Verdict(String outcome) {}

    @Test
    @DisplayName(
            "6,000 tokens of every header, key and claim at random, each configuration: the same verdict both ways")
    void sameVerdictAtRandom() throws Exception {
        for (SeckillProperties.Jwt cfg : List.of(ONE_SECRET, ROTATION)) {
            TokenDecoders decoders = new TokenDecoders(cfg, CLOCK);
            Random random = new Random(20261205);
            int accepted = 0;
            for (int i = 0; i < 6_000; i++) {
                String token = randomToken(random);
                Verdict spring = bySpring(decoders, token);
                Verdict lean = byEntry(decoders, token);
                assertThat(lean).as("token %d: %s", i, token).isEqualTo(spring);
                if (spring.outcome().startsWith("user ")) {
                    accepted++;
                }
            }
            assertThat(accepted)
                    .as("tokens accepted of 6,000 (the corpus holds both)")
                    .isBetween(100, 5_900);
        }
    }

    @Test
    @DisplayName("malformed tokens, other algorithms, critical headers and claims of the wrong type: refused both ways")
    void oddTokensRefusedAlike() throws Exception {
        List<String> odd = new ArrayList<>();
        String good = sign(new MACSigner(USER), JWSAlgorithm.HS256, null, null, claims("42", 600L, null, null));
        String[] parts = good.split("\\.");
        odd.addAll(List.of("", ".", "..", "a.b", "a.b.c", good + ".x", parts[0] + "." + parts[1] + ".", good + "x"));
        odd.add(parts[0] + ".!!!." + parts[2]);
        odd.add(Base64URL.encode("{\"alg\":\"HS256\"").toString() + "." + parts[1] + "." + parts[2]);
        odd.add(new PlainJWT(claims("42", 600L, null, null).build()).serialize());
        odd.add(hmac(JWSAlgorithm.HS512, USER, null, null, claims("42", 600L, null, null)));
        odd.add(hmac(JWSAlgorithm.HS384, USER, null, null, claims("42", 600L, null, null)));
        odd.add(sign(new RSASSASigner(rsa), JWSAlgorithm.RS256, null, null, claims("42", 600L, null, null)));
        JWSHeader critical = new JWSHeader.Builder(JWSAlgorithm.HS256)
                .criticalParams(Set.of("exp"))
                .customParam("exp", 1)
                .build();
        odd.add(signed(
                new MACSigner(USER),
                critical,
                claims("42", 600L, null, null).build().toString()));
        long exp = NOW.getEpochSecond() + 600;
        for (String payload : List.of(
                "{\"sub\":\"42\",\"exp\":\"" + exp + "\"}",
                "{\"sub\":42,\"exp\":" + exp + "}",
                "{\"sub\":\"42\",\"exp\":" + exp + ",\"aud\":[\"seckill\",7]}",
                "{\"sub\":\"42\",\"exp\":" + exp + ",\"iss\":7}",
                "{\"sub\":\"42\",\"exp\":" + exp + ".9}",
                "{\"sub\":\"42\",\"exp\":" + exp + ",\"sub\":\"43\"}",
                "{\"sub\":\"42\"}",
                "{}",
                "[]",
                "not json")) {
            odd.add(signed(new MACSigner(USER), new JWSHeader(JWSAlgorithm.HS256), payload));
        }
        for (SeckillProperties.Jwt cfg : List.of(ONE_SECRET, ROTATION)) {
            TokenDecoders decoders = new TokenDecoders(cfg, CLOCK);
            for (String token : odd) {
                assertThat(byEntry(decoders, token)).as(token).isEqualTo(bySpring(decoders, token));
            }
        }
        TokenDecoders decoders = new TokenDecoders(ONE_SECRET, CLOCK);
        assertThat(byEntry(decoders, good)).isEqualTo(new Verdict("user 42"));
        assertThat(odd.stream()
                        .map(t -> byEntry(decoders, t))
                        .filter(v -> v.outcome().startsWith("user ")))
                .as("of the odd tokens, only the duplicated sub and the fractional exp pass (as Nimbus reads them)")
                .hasSizeLessThanOrEqualTo(2);
    }

    @Test
    @DisplayName("a rotation: tokens of either secret pass by their kid or without one; a kid of no key, or the other "
            + "secret's kid, is refused both ways")
    void keysAndKids() throws Exception {
        TokenDecoders decoders = new TokenDecoders(ROTATION, CLOCK);
        String current = TokenDecoders.keyId(USER);
        String previous = TokenDecoders.keyId(PREVIOUS);
        JWTClaimsSet.Builder claims =
                claims("7", 600L, null, null).issuer("https://idp.test").audience("seckill");
        for (String secret : List.of(USER, PREVIOUS, STRANGER)) {
            for (String kid : new String[] {null, current, previous, "0123456789abcdef"}) {
                String token = sign(new MACSigner(secret), JWSAlgorithm.HS256, kid, null, claims);
                Verdict expected = bySpring(decoders, token);
                assertThat(byEntry(decoders, token))
                        .as("%s, kid %s", secret, kid)
                        .isEqualTo(expected);
                boolean ownKid = kid == null || kid.equals(TokenDecoders.keyId(secret));
                assertThat(expected.outcome())
                        .as("%s, kid %s", secret, kid)
                        .isEqualTo(!secret.equals(STRANGER) && ownKid ? "user 7" : "refused");
            }
        }
    }

    /** Each part of the token a valid one seven times in ten, any of its kind otherwise: both verdicts are common. */
    private String randomToken(Random random) throws Exception {
        String sub = usually(random, String.valueOf(1 + random.nextInt(1_000_000)), SUBJECTS);
        JWTClaimsSet.Builder b =
                claims(sub, usually(random, 600L, TIMES), usually(random, null, TIMES), usually(random, -1L, TIMES));
        b.issuer(usually(random, "https://idp.test", ISSUERS));
        List<String> aud = usually(random, List.of("seckill"), AUDIENCES.toArray(List[]::new));
        b.audience(aud.isEmpty() ? null : aud);
        if (random.nextInt(4) == 0) {
            b.jwtID("j" + random.nextInt(1_000)).claim("scope", "buy");
        }
        String type = new String[] {null, "JWT", "at+jwt", "other"}[random.nextInt(4)];
        if (random.nextInt(10) < 7) {
            return sign(new MACSigner(USER), JWSAlgorithm.HS256, null, type, b);
        }
        return switch (random.nextInt(5)) {
            case 0 -> sign(new MACSigner(PREVIOUS), JWSAlgorithm.HS256, null, type, b);
            case 1 -> sign(new MACSigner(PREVIOUS), JWSAlgorithm.HS256, TokenDecoders.keyId(PREVIOUS), type, b);
            case 2 -> sign(new MACSigner(STRANGER), JWSAlgorithm.HS256, null, type, b);
            case 3 -> sign(new MACSigner(USER), JWSAlgorithm.HS256, TokenDecoders.keyId(USER), type, b);
            default -> hmac(JWSAlgorithm.HS512, USER, null, type, b);
        };
    }

    @SafeVarargs
    private static <T> T usually(Random random, T valid, T... any) {
        return random.nextInt(10) < 7 ? valid : any[random.nextInt(any.length)];
    }

    /** Claims with sub and exp, nbf, iat that many seconds from now (null: absent). */
    private static JWTClaimsSet.Builder claims(String sub, Long exp, Long nbf, Long iat) {
        return new JWTClaimsSet.Builder()
                .subject(sub)
                .expirationTime(at(exp))
                .notBeforeTime(at(nbf))
                .issueTime(at(iat));
    }

    private static Date at(Long secondsFromNow) {
        return secondsFromNow == null ? null : Date.from(NOW.plusSeconds(secondsFromNow));
    }

    private static JWSHeader header(JWSAlgorithm alg, String kid, String type) {
        return new JWSHeader.Builder(alg)
                .keyID(kid)
                .type(type == null ? null : new JOSEObjectType(type))
                .build();
    }

    private static String sign(JWSSigner signer, JWSAlgorithm alg, String kid, String type, JWTClaimsSet.Builder claims)
            throws Exception {
        SignedJWT jwt = new SignedJWT(header(alg, kid, type), claims.build());
        jwt.sign(signer);
        return jwt.serialize();
    }

    /**
     * A token whose header names {@code alg} (HS384, HS512), its HMAC taken with {@code secret} however short:
     * the same secret under another algorithm, which the buyers' rules refuse.
     */
    private static String hmac(JWSAlgorithm alg, String secret, String kid, String type, JWTClaimsSet.Builder claims)
            throws Exception {
        String input = header(alg, kid, type).toBase64URL() + "."
                + Base64URL.encode(claims.build().toString());
        String jca = "Hmac" + alg.getName().replace("HS", "SHA");
        Mac mac = Mac.getInstance(jca);
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), jca));
        return input + "." + Base64URL.encode(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
    }

    /** A signed token with any payload, JSON or not. */
    private static String signed(JWSSigner signer, JWSHeader header, String payload) throws Exception {
        JWSObject o = new JWSObject(header, new Payload(payload.getBytes(StandardCharsets.UTF_8)));
        o.sign(signer);
        return o.serialize();
    }

    private static Verdict bySpring(TokenDecoders decoders, String token) {
        try {
            return new Verdict(
                    "user " + Long.parseLong(decoders.buyers().decode(token).getSubject()));
        } catch (BadJwtException e) {
            return new Verdict("refused");
        } catch (JwtException e) {
            return new Verdict("not judged");
        }
    }

    private static Verdict byEntry(TokenDecoders decoders, String token) {
        try {
            return new Verdict("user " + decoders.buyerIds().userId(token));
        } catch (BadJwtException e) {
            return new Verdict("refused");
        } catch (JwtException e) {
            return new Verdict("not judged");
        }
    }

    private static RSAKey rsa() {
        try {
            return new RSAKeyGenerator(2048).generate();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
