package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.seckill.config.SeckillProperties;
import io.seckill.support.JsonReplies;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * The token rules, on an injected clock: a buyer's subject is a positive user id; exp is required;
 * exp, nbf and iat are judged with the leeway; a buyer's token never passes the admin decoder; and
 * an identity provider's JWKS is the alternative to shared secrets.
 */
class TokenDecodersTest {

    private static final String USER = "user-secret-0123456789abcdef0123456789ab";
    private static final String ADMIN = "admin-secret-0123456789abcdef0123456789a";
    private static final Instant NOW = Instant.now();

    private final TokenDecoders decoders = decoders(Duration.ofSeconds(30));

    @Test
    @DisplayName("sub must be a positive integer: -3, 0, +5, 007x, 1e3 and 20 digits are refused")
    void positiveUserId() {
        assertThat(decoders.buyers().decode(sign(USER, c -> c.subject("42"))).getSubject())
                .isEqualTo("42");
        for (String sub : new String[] {"-3", "0", "+5", "007x", "1e3", "12345678901234567890", " 7", ""}) {
            assertThatThrownBy(() -> decoders.buyers().decode(sign(USER, c -> c.subject(sub))))
                    .as(sub)
                    .isInstanceOf(JwtException.class);
        }
    }

    @Test
    @DisplayName("exp, nbf and iat are judged with the leeway: inside it accepted, beyond it refused; exp is required")
    void timeClaimsWithLeeway() {
        assertThat(decoders.buyers().decode(sign(USER, c -> c.expirationTime(at(-20)))))
                .as("expired within leeway")
                .isNotNull();
        assertThat(decoders.buyers().decode(sign(USER, c -> c.notBeforeTime(at(20)))))
                .as("nbf within leeway")
                .isNotNull();
        assertThat(decoders.buyers().decode(sign(USER, c -> c.issueTime(at(20)))))
                .as("iat within leeway")
                .isNotNull();
        assertRefused(sign(USER, c -> c.expirationTime(at(-40))), "expired");
        assertRefused(sign(USER, c -> c.expirationTime(null)), "exp");
        assertRefused(sign(USER, c -> c.notBeforeTime(at(40))), "used before");
        assertRefused(sign(USER, c -> c.issueTime(at(300))), "iat");
        assertThat(decoders(Duration.ZERO).buyers().decode(sign(USER, c -> c.notBeforeTime(at(0)))))
                .as("nbf = now")
                .isNotNull();
    }

    @Test
    @DisplayName("a token signed with another key, garbage or alg none is refused; a buyer's token is not an admin's")
    void signatures() {
        for (String t :
                new String[] {"a.b.c", "x".repeat(9000), "eyJhbGciOiJub25lIn0.e30.", sign(USER + "x", c -> c)}) {
            assertThatThrownBy(() -> decoders.buyers().decode(t)).isInstanceOf(JwtException.class);
        }
        String buyer = sign(USER, c -> c);
        assertThatThrownBy(() -> decoders.admins().decode(buyer)).isInstanceOf(JwtException.class);
        Jwt admin =
                decoders.admins().decode(sign(ADMIN, c -> c.subject("alice").claim("scope", "seckill:admin other")));
        assertThat(TokenDecoders.scopes(admin)).contains(TokenDecoders.ADMIN_SCOPE);
        assertThatThrownBy(() -> decoders.buyers().decode(sign(ADMIN, c -> c)))
                .as("admin key on the buyer API")
                .isInstanceOf(JwtException.class);
    }

    @Test
    @DisplayName(
            "the HS256 check: a changed payload, header or signature, another HS algorithm with the same secret and a "
                    + "header naming critical parameters are refused")
    void signatureCheck() throws Exception {
        String good = sign(USER, c -> c.subject("42"));
        assertThat(decoders.buyers().decode(good).getSubject()).isEqualTo("42");
        String[] parts = good.split("\\.");
        String otherPayload = sign(USER, c -> c.subject("43")).split("\\.")[1];
        assertThatThrownBy(() -> decoders.buyers().decode(parts[0] + "." + otherPayload + "." + parts[2]))
                .as("payload")
                .isInstanceOf(JwtException.class);
        char last = parts[2].charAt(parts[2].length() - 2);
        String flipped = parts[2].substring(0, parts[2].length() - 2)
                + (last == 'A' ? 'B' : 'A')
                + parts[2].charAt(parts[2].length() - 1);
        assertThatThrownBy(() -> decoders.buyers().decode(parts[0] + "." + parts[1] + "." + flipped))
                .as("signature")
                .isInstanceOf(JwtException.class);
        assertThatThrownBy(() -> decoders.buyers().decode(parts[0] + "." + parts[1] + "."))
                .as("no signature")
                .isInstanceOf(JwtException.class);
        SignedJWT hs512 = new SignedJWT(
                new JWSHeader(JWSAlgorithm.HS512),
                new JWTClaimsSet.Builder().subject("7").expirationTime(at(600)).build());
        hs512.sign(new MACSigner(USER + USER));
        assertThatThrownBy(() -> decoders.buyers().decode(hs512.serialize()))
                .as("HS512")
                .isInstanceOf(JwtException.class);
        SignedJWT critical = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.HS256)
                        .criticalParams(Set.of("x-policy"))
                        .customParam("x-policy", 1)
                        .build(),
                new JWTClaimsSet.Builder().subject("7").expirationTime(at(600)).build());
        critical.sign(new MACSigner(USER));
        assertThatThrownBy(() -> decoders.buyers().decode(critical.serialize()))
                .as("crit")
                .isInstanceOf(JwtException.class);
    }

    @Test
    @DisplayName(
            "buyers' tokens checked from 8 threads at once, each a different buyer: every one accepted with its own "
                    + "subject, every forged one refused")
    void concurrentChecks() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 1; i <= 2_000; i++) {
                long user = i;
                String token = sign(i % 10 == 0 ? USER + "x" : USER, c -> c.subject(Long.toString(user)));
                results.add(pool.submit(() -> {
                    try {
                        return decoders.buyers().decode(token).getSubject().equals(Long.toString(user))
                                && user % 10 != 0;
                    } catch (JwtException e) {
                        return user % 10 == 0;
                    }
                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("a buyer's subject: digits only, no sign, no leading zero, at most 18 digits")
    void userIds() {
        for (String ok : new String[] {"1", "42", "999999999999999999", "100000000000000000"}) {
            assertThat(TokenDecoders.isUserId(ok)).as(ok).isTrue();
        }
        for (String bad :
                new String[] {null, "", "0", "01", "-1", "+1", "1 ", "1a", "1e3", "1000000000000000000", "١٢"}) {
            assertThat(TokenDecoders.isUserId(bad)).as(String.valueOf(bad)).isFalse();
        }
    }

    @Test
    @DisplayName("the tokens the demo, bench and CLI mint pass their decoder, and only theirs")
    void mintedTokens() {
        TokenDecoders now = new TokenDecoders(
                new SeckillProperties.Jwt(USER, ADMIN, null, null, null, null, null, Duration.ofSeconds(30)),
                Clock.systemUTC());
        assertThat(now.buyers()
                        .decode(Tokens.user(USER, 9, Duration.ofMinutes(5)))
                        .getSubject())
                .isEqualTo("9");
        Jwt admin = now.admins().decode(Tokens.admin(ADMIN, "ops", Duration.ofMinutes(5)));
        assertThat(admin.getSubject()).isEqualTo("ops");
        assertThat(TokenDecoders.scopes(admin)).contains(TokenDecoders.ADMIN_SCOPE);
        assertThatThrownBy(() -> now.admins().decode(Tokens.user(USER, 9, Duration.ofMinutes(5))))
                .isInstanceOf(JwtException.class);
    }

    @Test
    @DisplayName("with an identity provider: tokens are checked against its JWKS, issuer, audience and token type; an "
            + "operator is whoever has an operator scope")
    void identityProvider() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyID("k1").generate();
        HttpServer idp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String jwks = new JWKSet(key.toPublicJWK()).toString();
        idp.createContext("/jwks", x -> JsonReplies.reply(x, 200, jwks));
        idp.start();
        try (TokenDecoders fromIdp = fromIdp(idp)) {
            RSASSASigner rsa = new RSASSASigner(key);
            UnaryOperator<JWTClaimsSet.Builder> issued =
                    c -> c.issuer("https://idp.test").audience("seckill");
            assertThat(fromIdp.buyers().decode(sign(rsa, "k1", issued)).getSubject())
                    .isEqualTo("7");
            assertThat(fromIdp.buyers().decode(sign(rsa, "k1", "JWT", issued)).getSubject())
                    .as("the plain JWT type many providers write")
                    .isEqualTo("7");
            Jwt admin = fromIdp.admins()
                    .decode(sign(
                            rsa, "k1", c -> issued.apply(c).subject("alice").claim("scp", List.of("seckill:operate"))));
            assertThat(TokenDecoders.scopes(admin)).containsExactly("seckill:operate");
            assertThatThrownBy(() -> fromIdp.buyers()
                            .decode(sign(
                                    rsa,
                                    "k1",
                                    c -> c.issuer("https://evil.test").audience("seckill"))))
                    .as("another issuer")
                    .isInstanceOf(JwtException.class);
            assertThatThrownBy(() -> fromIdp.buyers()
                            .decode(sign(
                                    rsa, "k1", c -> c.issuer("https://idp.test").audience("another-client"))))
                    .as("a token the provider issued to another client")
                    .isInstanceOf(JwtException.class);
            assertThatThrownBy(() -> fromIdp.buyers().decode(sign(rsa, "k1", c -> c.issuer("https://idp.test"))))
                    .as("no audience")
                    .isInstanceOf(JwtException.class);
            assertThatThrownBy(() -> fromIdp.buyers().decode(sign(rsa, "k1", "logout+jwt", issued)))
                    .as("a token of another type")
                    .isInstanceOf(JwtException.class);
            assertThatThrownBy(() -> fromIdp.buyers().decode(sign(rsa, "k1", null, issued)))
                    .as("a token without a type")
                    .isInstanceOf(JwtException.class);
            assertThatThrownBy(() -> fromIdp.buyers().decode(sign(USER, c -> issued.apply(c))))
                    .as("a shared-secret token")
                    .isInstanceOf(JwtException.class);
            RSAKey other = new RSAKeyGenerator(2048).keyID("k1").generate();
            assertThatThrownBy(() -> fromIdp.buyers().decode(sign(new RSASSASigner(other), "k1", issued)))
                    .as("a key the provider does not publish")
                    .isInstanceOf(JwtException.class);
        } finally {
            idp.stop(0);
        }
    }

    @Test
    @DisplayName("the key set is fetched ahead, never on a request's thread: with the provider hanging, a token of a "
            + "key in hand passes and one of an unknown key is refused at once; the provider's new key is in hand "
            + "once it answers again")
    void keysAreFetchedAhead() throws Exception {
        RSAKey first = new RSAKeyGenerator(2048).keyID("k1").generate();
        RSAKey rotated = new RSAKeyGenerator(2048).keyID("k2").generate();
        AtomicReference<String> published = new AtomicReference<>(new JWKSet(first.toPublicJWK()).toString());
        AtomicInteger fetches = new AtomicInteger();
        CountDownLatch hang = new CountDownLatch(1);
        HttpServer idp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        idp.createContext("/jwks", x -> {
            if (fetches.incrementAndGet() > 1) {
                try {
                    hang.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            JsonReplies.reply(x, 200, published.get());
        });
        idp.setExecutor(Executors.newCachedThreadPool());
        idp.start();
        try (TokenDecoders fromIdp = fromIdp(idp)) {
            assertThat(fetches.get()).as("fetched as the instance starts").isEqualTo(1);
            UnaryOperator<JWTClaimsSet.Builder> issued =
                    c -> c.issuer("https://idp.test").audience("seckill");
            published.set(new JWKSet(List.of(first.toPublicJWK(), rotated.toPublicJWK())).toString());
            long t0 = System.nanoTime();
            assertThat(fromIdp.buyers()
                            .decode(sign(new RSASSASigner(first), "k1", issued))
                            .getSubject())
                    .isEqualTo("7");
            String unknownYet = sign(new RSASSASigner(rotated), "k2", issued);
            assertThatThrownBy(() -> fromIdp.buyers().decode(unknownYet)).isInstanceOf(JwtException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - t0))
                    .as("neither waited for the hanging provider")
                    .isLessThan(Duration.ofSeconds(2));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> fetches.get() == 2);
            hang.countDown();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> "7".equals(fromIdp.buyers().decode(unknownYet).getSubject()));
        } finally {
            hang.countDown();
            idp.stop(0);
        }
    }

    @Test
    @DisplayName(
            "a secret rotation: with the secret before kept as the previous one, tokens of both pass - by their kid, "
                    + "or without one; once it is dropped, its tokens are refused; a kid of no key is refused")
    void secretRotation() throws Exception {
        String rotated = "rotated-user-secret-0123456789abcdef0123456789";
        String oldToken = Tokens.user(USER, 7, Duration.ofMinutes(5));
        String newToken = Tokens.user(rotated, 8, Duration.ofMinutes(5));
        TokenDecoders during = new TokenDecoders(
                new SeckillProperties.Jwt(rotated, ADMIN, null, null, null, USER, null, Duration.ofSeconds(30)),
                Clock.systemUTC());
        assertThat(during.buyers().decode(oldToken).getSubject()).isEqualTo("7");
        assertThat(during.buyers().decode(newToken).getSubject()).isEqualTo("8");
        assertThat(during.buyers().decode(sign(USER, c -> c.subject("9"))).getSubject())
                .as("a token without a kid, signed with the secret before")
                .isEqualTo("9");
        assertThat(during.buyers().decode(sign(rotated, c -> c.subject("10"))).getSubject())
                .isEqualTo("10");
        String strangerKid = sign(new MACSigner(USER), "0123456789abcdef", c -> c);
        assertThatThrownBy(() -> during.buyers().decode(strangerKid))
                .as("a kid that names no key")
                .isInstanceOf(JwtException.class);
        assertThatThrownBy(() -> during.admins().decode(oldToken))
                .as("a buyer's token is no operator's, whichever secret")
                .isInstanceOf(JwtException.class);

        TokenDecoders after = new TokenDecoders(SeckillProperties.Jwt.secrets(rotated, ADMIN), Clock.systemUTC());
        assertThat(after.buyers().decode(newToken).getSubject()).isEqualTo("8");
        assertThatThrownBy(() -> after.buyers().decode(oldToken))
                .as("the secret before, dropped")
                .isInstanceOf(JwtException.class);
        assertThatThrownBy(
                        () -> new SeckillProperties.Jwt(rotated, ADMIN, null, null, null, rotated, null, Duration.ZERO))
                .hasMessageStartingWith("seckill.jwt.previous-user-secret");
    }

    @Test
    @DisplayName("secrets and a JWKS are alternatives: both at once, or neither, is refused naming the property")
    void configuration() {
        assertThatThrownBy(() -> new SeckillProperties.Jwt(
                        USER, ADMIN, "http://idp/jwks", null, null, null, null, Duration.ZERO))
                .hasMessageStartingWith("seckill.jwt.jwks-uri");
        assertThatThrownBy(() -> new SeckillProperties.Jwt(null, null, null, null, null, null, null, Duration.ZERO))
                .hasMessageStartingWith("seckill.jwt.user-secret");
        assertThatThrownBy(() -> new SeckillProperties.Jwt(
                        null, null, "http://idp.example/jwks", "https://idp", "seckill", null, null, Duration.ZERO))
                .as("plain http off loopback")
                .hasMessageStartingWith("seckill.jwt.jwks-uri");
        assertThatThrownBy(() -> new SeckillProperties.Jwt(
                        null, null, "https://idp.example/jwks", null, "seckill", null, null, Duration.ZERO))
                .hasMessageStartingWith("seckill.jwt.issuer");
        assertThatThrownBy(() -> new SeckillProperties.Jwt(
                        null, null, "https://idp.example/jwks", "https://idp", null, null, null, Duration.ZERO))
                .hasMessageStartingWith("seckill.jwt.audience");
        assertThatThrownBy(
                        () -> new SeckillProperties.Jwt(null, null, "ftp://idp", null, null, null, null, Duration.ZERO))
                .hasMessageStartingWith("seckill.jwt.jwks-uri");
    }

    private void assertRefused(String token, String detail) {
        assertThatThrownBy(() -> decoders.buyers().decode(token))
                .isInstanceOf(JwtException.class)
                .hasMessageContaining(detail);
    }

    private static TokenDecoders decoders(Duration leeway) {
        return new TokenDecoders(
                new SeckillProperties.Jwt(USER, ADMIN, null, null, null, null, null, leeway),
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static Date at(long secondsFromNow) {
        return Date.from(NOW.plusSeconds(secondsFromNow));
    }

    /** Decoders of the identity provider {@code idp} serves at /jwks: issuer https://idp.test, audience seckill. */
    private static TokenDecoders fromIdp(HttpServer idp) {
        return new TokenDecoders(
                new SeckillProperties.Jwt(
                        null,
                        null,
                        "http://127.0.0.1:" + idp.getAddress().getPort() + "/jwks",
                        "https://idp.test",
                        "seckill",
                        null,
                        null,
                        Duration.ofSeconds(30)),
                Clock.systemUTC());
    }

    private static String sign(String secret, UnaryOperator<JWTClaimsSet.Builder> claims) {
        try {
            return sign(new MACSigner(secret), null, claims);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sign(JWSSigner signer, String keyId, UnaryOperator<JWTClaimsSet.Builder> claims) {
        return sign(signer, keyId, signer instanceof MACSigner ? null : "at+jwt", claims);
    }

    private static String sign(
            JWSSigner signer, String keyId, String type, UnaryOperator<JWTClaimsSet.Builder> claims) {
        try {
            JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().subject("7").expirationTime(at(600));
            JWSHeader header = new JWSHeader.Builder(
                            signer instanceof MACSigner ? JWSAlgorithm.HS256 : JWSAlgorithm.RS256)
                    .keyID(keyId)
                    .type(type == null ? null : new JOSEObjectType(type))
                    .build();
            SignedJWT jwt = new SignedJWT(header, claims.apply(b).build());
            jwt.sign(signer);
            return jwt.serialize();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
