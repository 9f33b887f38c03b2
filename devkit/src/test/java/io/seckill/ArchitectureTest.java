package io.seckill;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The shape of the code (docs/DESIGN.md, "Packages"): features in their folders, no cycles between
 * them, SQL only in repositories, HTTP only in the web layer, and the engine never depending on the
 * tools built around it. Table ownership is {@link TableOwnershipTest}.
 */
class ArchitectureTest {

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.seckill");

    /** The dev kit, and the server's own command line (which may use anything of the server). */
    private static final String[] TOOLS = {
        "io.seckill.demo..",
        "io.seckill.bench..",
        "io.seckill.cli..",
        "io.seckill.engines..",
        "io.seckill.paysim..",
        "io.seckill.devkit.."
    };

    @Test
    @DisplayName("the engine does not depend on the demo, bench, CLI, simulator or embedded engines")
    void engineDoesNotDependOnTools() {
        noClasses()
                .that()
                .resideOutsideOfPackages(TOOLS)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(TOOLS)
                .check(CLASSES);
    }

    @Test
    @DisplayName("SQL lives in repositories: nothing else in any package uses JDBC (but the judged rows' mapping two "
            + "repositories share)")
    void onlyRepositoriesTouchJdbc() {
        noClasses()
                .that()
                .haveSimpleNameNotEndingWith("Repository")
                .and()
                .resideOutsideOfPackage("io.seckill.db..")
                .and()
                .doNotHaveFullyQualifiedName(JUDGED_ROWS)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.springframework.jdbc..", "java.sql..")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("javax.sql.DataSource")
                .check(CLASSES);
    }

    /** The row mapping the reservations' and the orders' change windows share (it reads a ResultSet). */
    private static final String JUDGED_ROWS = "io.seckill.reservation.JudgedRows";

    @Test
    @DisplayName("no feature reaches another feature's repository: every use of another feature's tables goes through "
            + "that feature's services (and every repository is package-private)")
    void repositoriesStayHome() {
        Set<String> reaches = new TreeSet<>();
        for (JavaClass c : CLASSES) {
            String from = feature(c);
            if (from == null) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass().getBaseComponentType();
                String to = feature(target);
                String owner = target.getName().replaceAll("\\$.*", "");
                if (to != null && !to.equals(from) && owner.endsWith("Repository")) {
                    reaches.add(c.getName() + " -> " + owner);
                }
            }
        }
        assertThat(reaches)
                .as("classes that reach into another feature's repository: use the owning feature's service")
                .isEmpty();
        classes()
                .that()
                .haveSimpleNameEndingWith("Repository")
                .and()
                .resideOutsideOfPackages("io.seckill.db..", "io.seckill.bench..", "io.seckill.demo..")
                .should()
                .notBePublic()
                .because("a repository is its feature's own: other features use the feature's service")
                .check(CLASSES);
    }

    /** The feature (the package under io.seckill) of an engine class; null for the tools. */
    private static String feature(JavaClass c) {
        String pkg = c.getPackageName();
        if (!pkg.startsWith("io.seckill.")) {
            return null;
        }
        String f = pkg.substring("io.seckill.".length()).split("\\.")[0];
        return List.of("demo", "bench", "engines", "paysim", "devkit").contains(f) ? null : f;
    }

    @Test
    @DisplayName("no package cycles between features")
    void noCycles() {
        SlicesRuleDefinition.slices()
                .matching("io.seckill.(*)..")
                .should()
                .beFreeOfCycles()
                .check(CLASSES);
    }

    @Test
    @DisplayName("HTTP types only in the web layer: controllers, the api package and the admission entry; the domain "
            + "refuses without them")
    void httpOnlyInTheWebLayer() {
        noClasses()
                .that()
                .resideOutsideOfPackages("io.seckill.api..", "io.seckill.entry..")
                .and()
                .haveSimpleNameNotEndingWith("Controller")
                .and()
                .resideOutsideOfPackages(TOOLS)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.springframework.http..",
                        "org.springframework.web..",
                        "jakarta.servlet..",
                        "io.netty.handler.codec.http..")
                .check(CLASSES);
    }

    @Test
    @DisplayName("the leaf packages (states, refusals, retry, rate windows, SQL helpers, HMAC, JSON, anomalies, holds) "
            + "depend on no feature")
    void leavesStayLeaves() {
        String[] leaves = {
            "io.seckill.state..",
            "io.seckill.refusal..",
            "io.seckill.retry..",
            "io.seckill.ratelimit..",
            "io.seckill.db..",
            "io.seckill.crypto..",
            "io.seckill.json..",
            "io.seckill.anomaly..",
            "io.seckill.hold.."
        };
        noClasses()
                .that()
                .resideInAnyPackage(leaves)
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.seckill..")
                        .and(JavaClass.Predicates.resideOutsideOfPackages(leaves)))
                .check(CLASSES);
    }
}
