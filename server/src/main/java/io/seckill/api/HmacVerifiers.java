package io.seckill.api;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.factories.DefaultJWSVerifierFactory;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.proc.JWSVerifierFactory;
import com.nimbusds.jose.util.Base64URL;
import io.seckill.crypto.HmacSha256;
import java.security.Key;
import java.security.MessageDigest;
import java.util.Set;
import javax.crypto.spec.SecretKeySpec;

/**
 * Nimbus's verifier factory for one HS256 secret, with the HMAC set up once per thread. Nimbus's own
 * {@link MACVerifier} looks the algorithm up in the JCA providers and derives the key's pads again
 * for every token: two thirds of the signature check's CPU on the admission path, where every
 * request carries a token. Here the HMAC is set up once per thread ({@link HmacSha256}). The check
 * is MACVerifier's: the signature must equal the HMAC of the signing input (compared in constant
 * time), and a header naming critical parameters is refused, none being understood. Any other
 * algorithm or key goes to Nimbus's default factory.
 */
final class HmacVerifiers implements JWSVerifierFactory {

    private final SecretKeySpec secret;
    private final byte[] secretBytes;
    private final JWSVerifier verifier = new Verifier();
    private final JWSVerifierFactory others = new DefaultJWSVerifierFactory();
    private final JCAContext jca = new JCAContext();
    private final HmacSha256 hmac;

    HmacVerifiers(SecretKeySpec secret) {
        check(secret);
        this.secret = secret;
        this.secretBytes = secret.getEncoded();
        this.hmac = new HmacSha256(secret, "HS256 secret");
    }

    /** Nimbus's own checks of an HS256 secret (at least 256 bits); refused with the reason. */
    static void check(SecretKeySpec secret) {
        try {
            new MACVerifier(secret);
        } catch (JOSEException e) {
            throw new IllegalArgumentException("HS256 secret refused: " + e.getMessage(), e);
        }
    }

    @Override
    public JWSVerifier createJWSVerifier(JWSHeader header, Key key) throws JOSEException {
        // the key may come from a JWK (its algorithm named otherwise): the secret's bytes decide
        return JWSAlgorithm.HS256.equals(header.getAlgorithm())
                        && key != null
                        && MessageDigest.isEqual(secretBytes, key.getEncoded())
                ? verifier
                : others.createJWSVerifier(header, key);
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
        return others.supportedJWSAlgorithms();
    }

    @Override
    public JCAContext getJCAContext() {
        return jca;
    }

    private final class Verifier implements JWSVerifier {

        @Override
        public boolean verify(JWSHeader header, byte[] signingInput, Base64URL signature) {
            Set<String> critical = header.getCriticalParams();
            if (critical != null && !critical.isEmpty()) {
                return false;
            }
            return MessageDigest.isEqual(hmac.of(signingInput), signature.decode());
        }

        @Override
        public Set<JWSAlgorithm> supportedJWSAlgorithms() {
            return Set.of(JWSAlgorithm.HS256);
        }

        @Override
        public JCAContext getJCAContext() {
            return jca;
        }
    }
}
