package io.seckill.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.config.SeckillProperties;
import io.seckill.health.RoleReadiness.Dependency;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

class RoleReadinessTest {

    private static final Set<String> WORKERS =
            SeckillProperties.KNOWN_ROLES.stream().filter(r -> !r.equals("api")).collect(Collectors.toSet());

    /** Readiness of a pod running {@code roles} while {@code away} does not answer. */
    private static Status readiness(Set<String> roles, Dependency... away) {
        Set<Dependency> down = away.length == 0 ? EnumSet.noneOf(Dependency.class) : EnumSet.of(away[0], away);
        HealthIndicator up = () -> Health.up().build();
        HealthIndicator gone = () -> Health.down().build();
        return new RoleReadiness(roles, d -> down.contains(d) ? gone : up)
                .health()
                .getStatus();
    }

    @Test
    @DisplayName("every role the engine knows has its dependencies written down")
    void everyRoleKnown() {
        assertThat(WORKERS).hasSize(9);
        for (String role : WORKERS) {
            assertThat(RoleReadiness.needed(Set.of(role))).as(role).isNotEmpty();
        }
    }

    @Test
    @DisplayName("an API pod stays ready through any one outage: its calls fail closed one by one")
    void apiPodStaysReady() {
        for (Dependency d : Dependency.values()) {
            assertThat(readiness(Set.of("api"), d)).as(d.name()).isEqualTo(Status.UP);
        }
        assertThat(readiness(SeckillProperties.KNOWN_ROLES, Dependency.POSTGRESQL, Dependency.REDIS))
                .as("a pod that also serves buyers")
                .isEqualTo(Status.UP);
    }

    @Test
    @DisplayName("a worker pod is ready while the dependencies of its own roles answer, and only those")
    void workerPodFollowsItsRoles() {
        assertThat(readiness(WORKERS)).isEqualTo(Status.UP);
        for (Dependency d : Dependency.values()) {
            assertThat(readiness(WORKERS, d)).as(d.name()).isEqualTo(Status.OUT_OF_SERVICE);
        }
        assertThat(readiness(Set.of("order-consumer"), Dependency.REDIS))
                .as("the order consumer needs no Redis")
                .isEqualTo(Status.UP);
        assertThat(readiness(Set.of("order-consumer"), Dependency.BROKER)).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(readiness(Set.of("payment"), Dependency.BROKER, Dependency.REDIS))
                .isEqualTo(Status.UP);
        assertThat(readiness(Set.of("payment"), Dependency.POSTGRESQL)).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(readiness(Set.of("projection"), Dependency.POSTGRESQL)).isEqualTo(Status.UP);
    }
}
