package io.seckill.api;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.client.RestOperations;

/**
 * An identity provider's key set, held in memory and refreshed ahead on a thread of its own: a token is
 * checked against the keys in hand and never waits for the provider. The set is fetched when the instance
 * starts and every {@link #REFRESH_EVERY}; a token whose key id is not in hand is refused at once and asks for
 * a refresh on the same thread (at most one per {@link #ASK_AT_MOST_EVERY}), so a rotation at the provider is
 * picked up within seconds without a flood of unknown key ids reaching it. A failed fetch keeps the keys in
 * hand and is logged ({@code api.jwks_fetch_failed}); the next one comes at the next tick.
 */
final class KeySetCache implements JWKSource<SecurityContext>, AutoCloseable {

    static final Duration REFRESH_EVERY = Duration.ofMinutes(5);
    static final Duration ASK_AT_MOST_EVERY = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(KeySetCache.class);

    private final String uri;
    private final RestOperations http;
    private final Clock clock;
    private final AtomicReference<JWKSet> keys = new AtomicReference<>(new JWKSet());
    private final AtomicLong lastAskedMs = new AtomicLong(Long.MIN_VALUE / 2);
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jwks-refresh");
        t.setDaemon(true);
        return t;
    });

    KeySetCache(String uri, RestOperations http, Clock clock) {
        this.uri = uri;
        this.http = http;
        this.clock = clock;
        refresh();
        refresher.scheduleWithFixedDelay(
                this::refresh, REFRESH_EVERY.toMillis(), REFRESH_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public List<JWK> get(JWKSelector selector, SecurityContext context) {
        List<JWK> found = selector.select(keys.get());
        if (found.isEmpty()) {
            long now = clock.millis();
            long last = lastAskedMs.get();
            if (now - last >= ASK_AT_MOST_EVERY.toMillis() && lastAskedMs.compareAndSet(last, now)) {
                refresher.execute(this::refresh);
            }
        }
        return found;
    }

    private void refresh() {
        try {
            String body = http.getForObject(uri, String.class);
            JWKSet fetched = JWKSet.parse(body == null ? "" : body);
            keys.set(fetched);
            log.debug("api.jwks_fetched uri={} keys={}", uri, fetched.getKeys().size());
        } catch (RuntimeException | ParseException e) {
            log.warn(
                    "api.jwks_fetch_failed uri={} keys_in_hand={} error_class={}: {}",
                    uri,
                    keys.get().getKeys().size(),
                    e.getClass().getName(),
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        refresher.shutdownNow();
    }
}
