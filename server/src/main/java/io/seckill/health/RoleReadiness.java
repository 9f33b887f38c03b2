package io.seckill.health;

import io.seckill.config.SeckillProperties;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.stereotype.Component;

/**
 * Readiness as "can this pod serve its roles now" (docs/DEPLOYMENT.md, the readiness matrix). A pod that runs the
 * {@code api} role stays ready through any one dependency's outage: every buyer's call fails closed on its own (a
 * Redis that does not answer: 503 with Retry-After; PostgreSQL away: status polls from Redis, order calls 503; the
 * broker away: admission pauses, 503) - taking the pod out of the Service would only turn those answers into the
 * load balancer's bare 502s. A worker pod is ready while the dependencies of the roles it runs answer: the order
 * consumer needs PostgreSQL and the broker, the projection Redis and the broker, and so on.
 */
@Component("roles")
public class RoleReadiness implements HealthIndicator {

    /** What a role cannot work without. */
    public enum Dependency {
        POSTGRESQL("db"),
        REDIS("redis"),
        BROKER("sendPath");

        private final String contributor;

        Dependency(String contributor) {
            this.contributor = contributor;
        }

        /** The health contributor that checks it: {@code db}, {@code redis} (a write), {@code sendPath}. */
        public String contributor() {
            return contributor;
        }
    }

    private final Set<String> roles;
    private final Function<Dependency, HealthIndicator> checks;

    /** The checks are the health contributors {@code db}, {@code redis} (a write) and {@code sendPath}. */
    @Autowired
    RoleReadiness(SeckillProperties props, ObjectProvider<HealthContributorRegistry> registry) {
        this(props.roles(), d -> {
            HealthContributor c = registry.getObject().getContributor(d.contributor());
            if (c instanceof HealthIndicator h) {
                return h;
            }
            return () -> Health.unknown()
                    .withDetail("missing", "no health indicator " + d.contributor())
                    .build();
        });
    }

    public RoleReadiness(Set<String> roles, Function<Dependency, HealthIndicator> checks) {
        this.roles = Set.copyOf(roles);
        this.checks = checks;
    }

    /** The dependencies whose outage takes a pod with {@code roles} out of readiness. */
    public static Set<Dependency> needed(Set<String> roles) {
        Set<Dependency> out = EnumSet.noneOf(Dependency.class);
        if (roles.contains("api")) {
            // buyers are answered per call, whatever is away
            return out;
        }
        for (String role : roles) {
            out.addAll(
                    switch (role) {
                        case "order-consumer", "outbox-relay" -> EnumSet.of(Dependency.POSTGRESQL, Dependency.BROKER);
                        case "projection", "send-due-scanner" -> EnumSet.of(Dependency.REDIS, Dependency.BROKER);
                        case "compensation", "deadline-sweeper", "reconciler" ->
                            EnumSet.of(Dependency.POSTGRESQL, Dependency.REDIS);
                        case "payment" -> EnumSet.of(Dependency.POSTGRESQL);
                        case "dlq-watch" -> EnumSet.of(Dependency.BROKER);
                        default -> EnumSet.noneOf(Dependency.class);
                    });
        }
        return out;
    }

    @Override
    public Health health() {
        Set<Dependency> needed = needed(roles);
        Health.Builder out = Health.up().withDetail("roles", roles).withDetail("needs", needed);
        for (Dependency d : needed) {
            Health h = checks.apply(d).health();
            if (!Status.UP.equals(h.getStatus())) {
                out.status(Status.OUT_OF_SERVICE)
                        .withDetail(d.name().toLowerCase(), h.getStatus().getCode());
            }
        }
        return out.build();
    }
}
