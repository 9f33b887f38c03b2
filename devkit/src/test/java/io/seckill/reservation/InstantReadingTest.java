package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The order message's instants are read exactly as {@link Instant#parse} reads them, refusals included. */
class InstantReadingTest {

    @Test
    @DisplayName(
            "every instant Instant.toString writes (seconds, milli-, micro- and nanoseconds) reads back as Instant.parse reads it")
    void readsWhatToStringWrites() {
        SplittableRandom random = new SplittableRandom(42);
        long from = Instant.parse("1970-01-01T00:00:00Z").getEpochSecond();
        long to = Instant.parse("2400-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            long nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1_000) * 1_000_000L;
                case 2 -> random.nextInt(1_000_000) * 1_000L;
                default -> random.nextInt(1_000_000_000);
            };
            Instant t = Instant.ofEpochSecond(random.nextLong(from, to), nanos);
            String text = t.toString();
            assertThat(OrderCreateRequested.instant(text))
                    .as(text)
                    .isEqualTo(Instant.parse(text))
                    .isEqualTo(t);
        }
    }

    @Test
    @DisplayName("other spellings and impossible dates are accepted or refused exactly as Instant.parse does")
    void othersAsInstantParse() {
        List<String> texts = List.of(
                "2026-12-02T18:47:57.1Z",
                "2026-12-02T18:47:57.12Z",
                "2026-12-02T18:47:57.1234Z",
                "2024-02-29T00:00:00Z",
                "2000-02-29T12:00:00Z",
                "0000-01-01T00:00:00Z",
                "2026-12-31T23:59:59.999999999Z",
                "2026-12-02T18:47:57+01:00",
                "2016-12-31T23:59:60Z",
                "+12026-12-02T18:47:57Z",
                "2026-12-02T18:47:57.Z",
                "2026-12-02T18:47:57z",
                "2026-12-02T24:00:00Z");
        for (String text : texts) {
            assertThat(OrderCreateRequested.instant(text)).as(text).isEqualTo(Instant.parse(text));
        }
        List<String> refused = List.of(
                "2025-02-29T00:00:00Z",
                "2026-04-31T10:00:00Z",
                "2026-13-01T00:00:00Z",
                "2026-00-10T00:00:00Z",
                "2026-12-00T00:00:00Z",
                "2026-12-02T25:00:00Z",
                "2026-12-02T18:60:00Z",
                "2026-12-02T18:47:61Z",
                "2026-12-02T18:47:57.1234567890Z",
                "2026-12-02 18:47:57Z",
                "2026-1a-02T18:47:57Z",
                "2026-12-02T18:47:57",
                "",
                "yesterday");
        for (String text : refused) {
            assertThatThrownBy(() -> Instant.parse(text))
                    .as("Instant.parse(%s)", text)
                    .isInstanceOf(DateTimeException.class);
            assertThatThrownBy(() -> OrderCreateRequested.instant(text))
                    .as(text)
                    .isInstanceOf(DateTimeException.class);
        }
    }
}
