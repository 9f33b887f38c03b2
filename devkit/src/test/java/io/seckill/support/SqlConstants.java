package io.seckill.support;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The SQL statements the product holds as constants, read by reflection, with the table each is about. */
public final class SqlConstants {

    private static final Pattern VERB =
            Pattern.compile("^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern TABLE = Pattern.compile(
            "(?<!FOR )\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|FROM)\\s+([a-z_]+)\\b", Pattern.CASE_INSENSITIVE);

    /** One statement: where it is declared and its text. */
    public record Statement(Class<?> owner, String name, String sql) {

        /** The table the statement is about: the one it writes, or the first it reads from outside any subquery. */
        public String table() {
            String flat = sql.replaceAll("\\s+", " ");
            Matcher m = TABLE.matcher(flat);
            String first = null;
            while (m.find()) {
                String verb = m.group(1).toUpperCase(Locale.ROOT);
                String table = m.group(2).toLowerCase(Locale.ROOT);
                if (!verb.equals("FROM")) {
                    // the first write is the main statement (a claim's CTE reads the same table first)
                    return table;
                }
                if (first == null && !table.equals("unnest") && depth(flat, m.start()) == 0) {
                    first = table;
                }
            }
            if (first != null) {
                return first;
            }
            m.reset();
            while (m.find()) {
                if (!m.group(2).equalsIgnoreCase("unnest")) {
                    return m.group(2).toLowerCase(Locale.ROOT);
                }
            }
            return null;
        }

        private static int depth(String s, int end) {
            int d = 0;
            for (int i = 0; i < end; i++) {
                char c = s.charAt(i);
                if (c == '(') {
                    d++;
                } else if (c == ')') {
                    d--;
                }
            }
            return d;
        }
    }

    private SqlConstants() {}

    /** Every static final String of the product's classes that is a SQL statement. */
    public static List<Statement> all() {
        List<Statement> out = new ArrayList<>();
        for (JavaClass jc : new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.seckill")) {
            out.addAll(of(jc.reflect()));
        }
        return out;
    }

    public static List<Statement> of(Class<?> type) {
        List<Statement> out = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (f.getType() != String.class || !Modifier.isStatic(mod) || !Modifier.isFinal(mod)) {
                continue;
            }
            try {
                f.setAccessible(true);
                Object v = f.get(null);
                if (v instanceof String sql && VERB.matcher(sql).find()) {
                    out.add(new Statement(type, f.getName(), sql));
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("cannot read " + type.getName() + "." + f.getName(), e);
            }
        }
        return out;
    }
}
