package io.seckill.support;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The spans the application finishes, kept in memory for assertions. The tests sample nothing by
 * themselves (probability 0): only a trace a test starts with a sampled {@code traceparent} is
 * recorded, so the suite's traffic does not pile up here.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TraceCapture {

    public static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    @Bean
    SpanExporter capturedSpans() {
        return SPANS;
    }
}
