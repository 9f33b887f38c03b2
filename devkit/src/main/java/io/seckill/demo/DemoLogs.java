package io.seckill.demo;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.springframework.boot.logging.LogFile;
import org.springframework.boot.logging.LoggingInitializationContext;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The demo's console is for the sale's progress and its report: every log line - the engines' start,
 * the application's - goes to one file instead, from the first line on.
 */
final class DemoLogs {

    private DemoLogs() {}

    /** Sends the logging of this process to a new file in the temporary directory; its path. */
    static Path toFile() {
        Path file = Path.of(
                System.getProperty("java.io.tmpdir"),
                "seckill-demo-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".log");
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("demo-logs", Map.copyOf(springProperties(file))));
        LoggingSystem logging = LoggingSystem.get(DemoLogs.class.getClassLoader());
        logging.beforeInitialize();
        logging.initialize(new LoggingInitializationContext(env), null, LogFile.get(env));
        return file;
    }

    /** The same, for the application context the demo starts (it initializes logging again). */
    static Map<String, String> springProperties(Path file) {
        return Map.of("logging.file.name", file.toString(), "logging.threshold.console", "OFF");
    }
}
