package io.seckill.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HashStatusTest {

    private static final Path LUA = Path.of("src", "main", "resources", "lua");
    /** A status written ({@code 'status', 'X'}) or compared ({@code status == 'X'}, {@code Status ~= 'X'}). */
    private static final Pattern STATUS_WORD = Pattern.compile("(?:'status',\\s*|[sS]tatus\\s*[=~]=\\s*)'([A-Z_]+)'");
    /** A slot's own status (its meta hash): the sale's, or PAUSED while a recalibration holds it. */
    private static final Set<String> SLOT_STATUSES = Stream.concat(
                    Stream.of(SaleStatus.values()).map(Enum::name), Stream.of("PAUSED"))
            .collect(Collectors.toSet());

    private static Set<String> statusWords() throws IOException {
        Set<String> words = new TreeSet<>();
        try (Stream<Path> files = Files.walk(LUA)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".lua")).toList()) {
                Matcher m = STATUS_WORD.matcher(Files.readString(f));
                while (m.find()) {
                    words.add(m.group(1));
                }
            }
        }
        return words;
    }

    @Test
    @DisplayName("every status the Lua library writes or guards is a HashStatus (or a slot's own status)")
    void everyScriptStatusIsTyped() throws IOException {
        Set<String> words = statusWords();
        assertThat(words)
                .as("the scripts were read")
                .contains("RESERVED", "ORDER_CREATED", "CANCEL_PENDING", "PAID", "COMPENSATED", "PAUSED");
        Set<String> hash =
                EnumSet.allOf(HashStatus.class).stream().map(Enum::name).collect(Collectors.toSet());
        for (String w : words) {
            assertThat(hash.contains(w) || SLOT_STATUSES.contains(w))
                    .as("'%s' in a script is neither a HashStatus nor a slot status", w)
                    .isTrue();
        }
    }

    @Test
    @DisplayName("a hash moves forward only: an order's states follow the order, the end states move nowhere")
    void transitions() {
        for (HashStatus s : HashStatus.values()) {
            assertThat(s.canMoveTo(s)).as(s + " to itself").isFalse();
            assertThat(s.canMoveTo(HashStatus.RESERVED))
                    .as(s + " back to RESERVED")
                    .isFalse();
        }
        assertThat(HashStatus.RESERVED.next())
                .containsExactlyInAnyOrder(
                        HashStatus.ORDER_CREATED,
                        HashStatus.CANCEL_PENDING,
                        HashStatus.PAID,
                        HashStatus.CANCELLED,
                        HashStatus.COMPENSATED);
        assertThat(HashStatus.ORDER_CREATED.canMoveTo(HashStatus.COMPENSATED)).isFalse();
        assertThat(HashStatus.CANCEL_PENDING.next()).containsExactlyInAnyOrder(HashStatus.PAID, HashStatus.CANCELLED);
        assertThat(HashStatus.PAID.next()).isEmpty();
        assertThat(HashStatus.CANCELLED.next()).isEmpty();
        assertThat(HashStatus.COMPENSATED.next()).isEmpty();
    }

    @Test
    @DisplayName("a buyer sees the same status whether Redis or PostgreSQL answered the poll")
    void oneVocabularyForBuyers() {
        for (ReservationStatus pg : ReservationStatus.values()) {
            assertThat(HashStatus.valueOf(pg.name()).shown()).as(pg.name()).isEqualTo(PublicStatus.of(pg));
        }
        assertThat(HashStatus.CANCEL_PENDING.shown()).isEqualTo(PublicStatus.ORDER_CREATED);
        assertThat(HashStatus.PAID.shown()).isEqualTo(PublicStatus.ORDER_CREATED);
    }

    @Test
    @DisplayName("an order's status maps to the hash status that mirrors it; an unpaid order is ORDER_CREATED")
    void ordersMirror() {
        assertThat(HashStatus.ofOrder(OrderStatus.CREATED)).isEqualTo(HashStatus.ORDER_CREATED);
        assertThat(HashStatus.ofOrder(OrderStatus.PAYING)).isEqualTo(HashStatus.ORDER_CREATED);
        for (OrderStatus o : EnumSet.of(OrderStatus.CANCEL_PENDING, OrderStatus.PAID, OrderStatus.CANCELLED)) {
            assertThat(HashStatus.ofOrder(o).name()).isEqualTo(o.name());
        }
    }

    @Test
    @DisplayName("a word no script writes is refused naming it; a gone hash is null")
    void parse() {
        assertThat(HashStatus.parse(null)).isNull();
        assertThat(HashStatus.parse("PAID")).isEqualTo(HashStatus.PAID);
        assertThatThrownBy(() -> HashStatus.parse("SHIPPED")).hasMessageContaining("'SHIPPED'");
        assertThat(HashStatus.lenient("SHIPPED")).isNull();
    }
}
