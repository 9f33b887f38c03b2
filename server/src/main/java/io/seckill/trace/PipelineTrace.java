package io.seckill.trace;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import java.util.HashMap;
import java.util.Map;
import org.apache.rocketmq.common.message.Message;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * One purchase as one trace across the pipeline (DESIGN.md, Operations): the W3C trace context travels
 * in RocketMQ user properties and, across the outbox, in the event row. The HTTP request's span is the
 * parent of the order message's send; the consumer continues the message's trace; the order
 * transaction writes its events with the consumer's context; the relay continues that context on the
 * event message, and the projection continues the event's. The admission entry's request span
 * ({@link #serve}) takes the HTTP request's place for the calls it answers. With no tracer (tracing off) every span is
 * a no-op and nothing is written.
 */
@Component
public final class PipelineTrace {

    /** The W3C header the context travels under, in a message's properties and an outbox row. */
    public static final String TRACEPARENT = "traceparent";

    private final Tracer tracer;
    private final Propagator propagator;

    PipelineTrace(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
        this.tracer = tracer.getIfAvailable(() -> Tracer.NOOP);
        this.propagator = propagator.getIfAvailable(() -> Propagator.NOOP);
    }

    /**
     * A server span for a request the framework does not observe (the admission entry's), continuing
     * the caller's {@code traceparent} header; a new trace when the request carries none.
     */
    public Span serve(String name, String traceparent) {
        return continued(name, Span.Kind.SERVER, traceparent);
    }

    /** A producer span under the current one (the request's, or a new trace), its context written into the message. */
    public Span send(String name, Message message) {
        Span span = tracer.spanBuilder().name(name).kind(Span.Kind.PRODUCER).start();
        propagator.inject(span.context(), message, Message::putUserProperty);
        return span;
    }

    /** A consumer span continuing the trace a message carries; a new trace when it carries none. */
    public Span receive(String name, Message message) {
        return continued(name, Span.Kind.CONSUMER, message.getUserProperty(TRACEPARENT));
    }

    /** A span continuing a context kept as its {@code traceparent} (an outbox row's); a new trace when null. */
    public Span resume(String name, String traceparent) {
        return continued(name, null, traceparent);
    }

    /** A producer span continuing a kept context, written into the message it sends. */
    public Span send(String name, String traceparent, Message message) {
        Span span = continued(name, Span.Kind.PRODUCER, traceparent);
        propagator.inject(span.context(), message, Message::putUserProperty);
        return span;
    }

    /** The span's context as a {@code traceparent} to keep with work done under it; null when there is none. */
    public String traceparent(Span span) {
        if (span == null || span.isNoop()) {
            return null;
        }
        Map<String, String> headers = new HashMap<>(4);
        propagator.inject(span.context(), headers, Map::put);
        return headers.get(TRACEPARENT);
    }

    /** The current span's {@code traceparent} (work done on a request thread); null outside a span. */
    public String currentTraceparent() {
        return traceparent(tracer.currentSpan());
    }

    /** Puts the span in scope on this thread (logs carry its trace id) until the returned scope closes. */
    public Tracer.SpanInScope inScope(Span span) {
        return tracer.withSpan(span);
    }

    private Span continued(String name, Span.Kind kind, String traceparent) {
        Span.Builder b = traceparent == null
                ? tracer.spanBuilder().setNoParent()
                : propagator.extract(Map.of(TRACEPARENT, traceparent), Map::get);
        b.name(name);
        if (kind != null) {
            b.kind(kind);
        }
        return b.start();
    }
}
