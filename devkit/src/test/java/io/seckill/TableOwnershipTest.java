package io.seckill;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.RepoDocs;
import io.seckill.support.SqlConstants;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * One owner per table: every statement lives in the repository of the table it is about - the one it
 * writes, or the one it reads from - and may join other tables only to read them. The owners are the
 * table "Tables and their owners" of docs/DESIGN.md, read from there: every table the migrations create
 * has exactly one owner in it, and every owner it names is a class.
 */
class TableOwnershipTest {

    private static final Pattern OWNER_ROW = Pattern.compile("^\\| (`\\w+`(?:, `\\w+`)*) \\| `([\\w.]+)` \\|$");

    /** table -> the one repository whose SQL is about it, from docs/DESIGN.md. */
    private static final Map<String, String> OWNERS = documentedOwners();

    private static final Pattern CREATE_TABLE =
            Pattern.compile("CREATE (?:UNLOGGED )?TABLE (\\w+)", Pattern.CASE_INSENSITIVE);

    @Test
    @DisplayName("every statement is declared by the owner of the table it is about")
    void statementsLiveWithTheirTable() {
        var statements = SqlConstants.all();
        assertThat(statements).as("the scan finds the product's SQL").hasSizeGreaterThan(80);
        Set<String> wrong = new TreeSet<>();
        for (SqlConstants.Statement s : statements) {
            String table = s.table();
            if (table == null) {
                continue;
            }
            String owner = OWNERS.get(table);
            if (owner == null) {
                wrong.add(
                        s.owner().getSimpleName() + "." + s.name() + " is about " + table + ", a table with no owner");
            } else if (!owner.equals(s.owner().getName())) {
                wrong.add(s.owner().getSimpleName() + "." + s.name() + " is about " + table + ", owned by " + owner);
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    @DisplayName("every table of the migrations has exactly one owning repository in docs/DESIGN.md, and owners are "
            + "real classes owning real tables")
    void everyTableHasAnOwner() throws IOException, ClassNotFoundException {
        Set<String> tables = new TreeSet<>();
        for (Resource r : new PathMatchingResourcePatternResolver().getResources("classpath*:db/migration/*.sql")) {
            try (InputStream in = r.getInputStream()) {
                Matcher m = CREATE_TABLE.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                while (m.find()) {
                    tables.add(m.group(1).toLowerCase());
                }
            }
        }
        assertThat(tables).hasSizeGreaterThan(10);
        assertThat(OWNERS.keySet()).containsExactlyInAnyOrderElementsOf(tables);
        for (String owner : new TreeSet<>(OWNERS.values())) {
            assertThat(Class.forName(owner)).as(owner).isNotNull();
        }
    }

    private static Map<String, String> documentedOwners() {
        Map<String, String> owners = new TreeMap<>();
        try {
            for (String line : Files.readAllLines(RepoDocs.doc("DESIGN.md"))) {
                Matcher row = OWNER_ROW.matcher(line);
                if (row.matches()) {
                    for (String table : row.group(1).replace("`", "").split(", ")) {
                        String previous = owners.put(table, "io.seckill." + row.group(2));
                        if (previous != null) {
                            throw new IllegalStateException("docs/DESIGN.md gives " + table + " two owners");
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return owners;
    }

    @Test
    @DisplayName("the statement scan reads the main table of writes, claims and joins right")
    void scanReadsTheMainTable() {
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                WITH due AS (SELECT order_id FROM orders WHERE status = 'CREATED' FOR UPDATE SKIP LOCKED)
                UPDATE orders AS o SET status = 'PAID' FROM due WHERE o.order_id = due.order_id
                """).table()).isEqualTo("orders");
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                SELECT count(*) FROM payment_record p JOIN orders o ON o.order_id = p.order_id
                """).table()).isEqualTo("payment_record");
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                SELECT count(*) FROM (SELECT 1 FROM orders GROUP BY user_id) d
                """).table()).isEqualTo("orders");
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                INSERT INTO inventory_ledger (a) SELECT a FROM unnest(?::bigint[]) AS t(a)
                """).table()).isEqualTo("inventory_ledger");
        assertThat(new SqlConstants.Statement(Object.class, "x", "SELECT clock_timestamp()").table())
                .isNull();
    }
}
