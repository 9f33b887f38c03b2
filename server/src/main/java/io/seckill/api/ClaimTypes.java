package io.seckill.api;

import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.MappedJwtClaimSetConverter;

/**
 * The claims of a verified token as Spring Security's default mapping types them ({@code exp},
 * {@code nbf}, {@code iat} as instants, {@code aud} as a list of strings, {@code iss}, {@code sub} and
 * {@code jti} as strings; every other claim as it is), without the default's generic conversion
 * service for the claims Nimbus already hands over in those types: that service was a sixth of the
 * token check's CPU on the admission path. A claim of any other type goes the default way, so the
 * result is the default's in every case. One difference on purpose: the default makes up an
 * {@code iat} one second before {@code exp} when the token has none; here a token without
 * {@code iat} has none, so only a real one is judged.
 */
final class ClaimTypes {

    private static final List<String> TIMES = List.of(JwtClaimNames.EXP, JwtClaimNames.NBF, JwtClaimNames.IAT);
    private static final List<String> TEXTS = List.of(JwtClaimNames.SUB, JwtClaimNames.JTI);
    /** Issuers seen, as the default maps them (it parses each as a URL); a deployment has one or a few. */
    private static final int MAX_ISSUERS = 16;

    private final MappedJwtClaimSetConverter defaults = MappedJwtClaimSetConverter.withDefaults(Map.of());
    private final Map<String, Object> issuers = new ConcurrentHashMap<>();

    Map<String, Object> convert(Map<String, Object> claims) {
        Map<String, Object> out = new HashMap<>(claims);
        for (String time : TIMES) {
            Object v = out.get(time);
            if (v instanceof Date d) {
                out.put(time, d.toInstant());
            } else if (v != null && !(v instanceof Instant)) {
                return byDefault(claims);
            }
        }
        for (String text : TEXTS) {
            Object v = out.get(text);
            if (v != null && !(v instanceof String)) {
                return byDefault(claims);
            }
        }
        Object aud = out.get(JwtClaimNames.AUD);
        if (aud != null && !(aud instanceof List<?> list && list.stream().allMatch(String.class::isInstance))) {
            return byDefault(claims);
        }
        Object iss = out.get(JwtClaimNames.ISS);
        if (iss instanceof String s) {
            out.put(JwtClaimNames.ISS, issuer(s));
        } else if (iss != null) {
            return byDefault(claims);
        }
        return out;
    }

    /** The issuer as the default mapping types it (its string form is what the issuer rule compares). */
    Object issuer(String iss) {
        Object known = issuers.get(iss);
        if (known != null) {
            return known;
        }
        Object mapped = defaults.convert(Map.of(JwtClaimNames.ISS, iss)).get(JwtClaimNames.ISS);
        if (issuers.size() < MAX_ISSUERS) {
            issuers.put(iss, mapped);
        }
        return mapped;
    }

    private Map<String, Object> byDefault(Map<String, Object> claims) {
        Map<String, Object> out = new HashMap<>(defaults.convert(claims));
        if (!claims.containsKey(JwtClaimNames.IAT)) {
            out.remove(JwtClaimNames.IAT);
        }
        return out;
    }
}
