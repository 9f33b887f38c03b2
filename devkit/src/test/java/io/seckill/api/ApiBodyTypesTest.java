package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The bodies the controllers take and answer are records (or dictionaries and lists of them), and no two of those
 * records share a simple name: the OpenAPI document names a schema by its simple name, so two records of one name
 * would silently become one schema.
 */
class ApiBodyTypesTest {

    @Test
    @DisplayName("every record reachable from a controller's body has a simple name of its own")
    void bodyTypesHaveDistinctNames() throws Exception {
        Set<Class<?>> records = new HashSet<>();
        Deque<Type> todo = new ArrayDeque<>();
        for (Class<?> controller : controllers()) {
            for (Method m : controller.getDeclaredMethods()) {
                if (!isMapping(m)) {
                    continue;
                }
                todo.add(m.getGenericReturnType());
                for (var p : m.getParameters()) {
                    if (p.isAnnotationPresent(RequestBody.class)) {
                        todo.add(p.getParameterizedType());
                    }
                }
            }
        }
        while (!todo.isEmpty()) {
            Type t = todo.pop();
            if (t instanceof ParameterizedType p) {
                todo.addAll(java.util.List.of(p.getActualTypeArguments()));
            } else if (t instanceof Class<?> c && c.isRecord() && records.add(c)) {
                for (RecordComponent rc : c.getRecordComponents()) {
                    todo.add(rc.getGenericType());
                }
            }
        }
        assertThat(records).as("the scan finds the API's records").hasSizeGreaterThan(20);
        Map<String, Set<String>> byName = new TreeMap<>();
        for (Class<?> r : records) {
            byName.computeIfAbsent(r.getSimpleName(), k -> new TreeSet<>()).add(r.getName());
        }
        byName.values().removeIf(names -> names.size() == 1);
        assertThat(byName).as("records of the API sharing a simple name").isEmpty();
    }

    private static Set<Class<?>> controllers() throws ClassNotFoundException {
        Set<Class<?>> out = new HashSet<>();
        for (JavaClass c : new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.seckill")) {
            if (c.isAnnotatedWith(RestController.class)) {
                out.add(Class.forName(c.getName()));
            }
        }
        return out;
    }

    private static boolean isMapping(Method m) {
        for (var a : m.getAnnotations()) {
            if (a.annotationType().isAnnotationPresent(RequestMapping.class) || a instanceof RequestMapping) {
                return true;
            }
        }
        return false;
    }
}
