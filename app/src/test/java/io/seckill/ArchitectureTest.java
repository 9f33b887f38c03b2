package io.seckill;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/** Features stay in their folders: the running engine never depends on the tools built around it. */
class ArchitectureTest {

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.seckill");

    @Test
    @DisplayName("engine features do not depend on the demo, bench, CLI or embedded engines")
    void engineDoesNotDependOnTools() {
        noClasses().that().resideInAnyPackage("io.seckill.reservation..", "io.seckill.order..", "io.seckill.inbox..",
                "io.seckill.outbox..", "io.seckill.projection..", "io.seckill.compensation..", "io.seckill.activity..",
                "io.seckill.api..", "io.seckill.redis..", "io.seckill.mq..", "io.seckill.payment..", "io.seckill.reconcile..")
                .should().dependOnClassesThat().resideInAnyPackage("io.seckill.demo..", "io.seckill.bench..",
                        "io.seckill.cli..", "io.seckill.engines..")
                .check(CLASSES);
    }

    @Test
    @DisplayName("SQL lives in repositories: services and workers do not use JDBC directly")
    void onlyRepositoriesTouchJdbc() {
        noClasses().that().resideInAnyPackage("io.seckill.reservation..", "io.seckill.order..", "io.seckill.outbox..",
                "io.seckill.projection..", "io.seckill.inbox..", "io.seckill.compensation..", "io.seckill.activity..",
                "io.seckill.payment..", "io.seckill.reconcile..")
                .and().haveSimpleNameNotEndingWith("Repository")
                .should().dependOnClassesThat().haveFullyQualifiedName("org.springframework.jdbc.core.JdbcTemplate")
                .check(CLASSES);
    }

    @Test
    @DisplayName("no package cycles between features")
    void noCycles() {
        com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices().matching("io.seckill.(*)..")
                .should().beFreeOfCycles().check(CLASSES);
    }
}
