package io.seckill.trace;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/** {@link PipelineTrace} for parts a test builds by hand, outside an application context. */
public final class Traces {

    private Traces() {}

    /** Without a tracer: every span a no-op, as in an application with tracing off. */
    public static PipelineTrace none() {
        StaticListableBeanFactory none = new StaticListableBeanFactory();
        return new PipelineTrace(none.getBeanProvider(Tracer.class), none.getBeanProvider(Propagator.class));
    }
}
