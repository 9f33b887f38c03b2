package io.seckill.failpoint;

import org.junit.jupiter.api.Tag;

/**
 * The slow suite's failpoint soak ({@code ./seckill slow-test}): every failpoint 200 times (or
 * {@code -Dseckill.failpoint.soak-repetitions=N}), each repetition abandoning the step that
 * reached it, with the guarantees checked after every batch of 25.
 */
@Tag("slow")
class FailpointSoakIT extends FailpointRepetitionIT {

    @Override
    protected int repetitions() {
        return Integer.getInteger("seckill.failpoint.soak-repetitions", 200);
    }
}
