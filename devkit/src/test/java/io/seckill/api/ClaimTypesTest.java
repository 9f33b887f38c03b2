package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jwt.JWTClaimsSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.MappedJwtClaimSetConverter;

/** The claims typed as Spring Security's default mapping types them, for every shape a token's claims can take. */
class ClaimTypesTest {

    private static final MappedJwtClaimSetConverter DEFAULTS = MappedJwtClaimSetConverter.withDefaults(Map.of());
    private static final String[] ISSUERS = {
        "https://idp.test",
        "HTTPS://Idp.Test:443/realms/a?x=1",
        "urn:example:idp",
        "issuer-without-scheme",
        "http://[::1]:8080/",
        "https://idp.test/ä"
    };

    private final ClaimTypes types = new ClaimTypes();

    @Test
    @DisplayName("5,000 claim sets as Nimbus hands them over (times, subject, id, audience, issuer, other claims, each "
            + "present or not): typed exactly as the default mapping types them, without an iat the token lacks")
    void sameAsTheDefaultMapping() {
        Random random = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            JWTClaimsSet.Builder b = new JWTClaimsSet.Builder();
            Instant now = Instant.ofEpochSecond(1_700_000_000L + random.nextInt(1_000_000));
            if (random.nextBoolean()) {
                b.expirationTime(Date.from(now.plusSeconds(300)));
            }
            if (random.nextBoolean()) {
                b.notBeforeTime(Date.from(now));
            }
            if (random.nextBoolean()) {
                b.issueTime(Date.from(now));
            }
            if (random.nextBoolean()) {
                b.subject(Long.toString(random.nextLong(1, Long.MAX_VALUE)));
            }
            if (random.nextBoolean()) {
                b.jwtID("id-" + i);
            }
            switch (random.nextInt(3)) {
                case 0 -> b.audience("seckill");
                case 1 -> b.audience(List.of("seckill", "other"));
                default -> {}
            }
            if (random.nextBoolean()) {
                b.issuer(ISSUERS[random.nextInt(ISSUERS.length)]);
            }
            if (random.nextBoolean()) {
                b.claim("scope", random.nextBoolean() ? "seckill:admin other" : List.of("seckill:admin"));
            }
            if (random.nextBoolean()) {
                b.claim("tenant", random.nextInt(100));
            }
            Map<String, Object> claims = b.build().getClaims();
            assertThat(types.convert(claims)).as(claims.toString()).isEqualTo(byDefault(claims));
        }
    }

    @Test
    @DisplayName(
            "claims in types Nimbus does not hand over (a time as a number or text, a numeric subject, an audience of "
                    + "numbers, an issuer that is not text) go the default way")
    void otherTypesGoTheDefaultWay() {
        List<Map<String, Object>> odd = new ArrayList<>();
        odd.add(Map.of(JwtClaimNames.EXP, 1_800_000_000L));
        odd.add(Map.of(JwtClaimNames.NBF, "2030-01-01T00:00:00Z"));
        odd.add(Map.of(JwtClaimNames.IAT, Instant.ofEpochSecond(1_700_000_000L)));
        odd.add(Map.of(JwtClaimNames.SUB, 42));
        odd.add(Map.of(JwtClaimNames.AUD, List.of(1, 2)));
        odd.add(Map.of(JwtClaimNames.AUD, "single"));
        odd.add(Map.of(JwtClaimNames.ISS, new StringBuilder("https://idp.test")));
        for (Map<String, Object> claims : odd) {
            assertThat(types.convert(new HashMap<>(claims)))
                    .as(claims.toString())
                    .isEqualTo(byDefault(claims));
        }
    }

    private static Map<String, Object> byDefault(Map<String, Object> claims) {
        Map<String, Object> out = new HashMap<>(DEFAULTS.convert(claims));
        if (!claims.containsKey(JwtClaimNames.IAT)) {
            out.remove(JwtClaimNames.IAT);
        }
        return out;
    }
}
