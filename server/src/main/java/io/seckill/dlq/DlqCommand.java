package io.seckill.dlq;

import io.seckill.hold.HoldRepository;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code seckill dlq list|replay}: the dead letters of a consumer group, and their re-drive with the same ids. */
@Command(name = "dlq", mixinStandardHelpOptions = true, description = "List or replay a consumer group's dead letters.")
public final class DlqCommand implements Callable<Integer> {

    @Parameters(index = "0", description = "list | replay")
    String action;

    @Option(names = "--namesrv", description = "RocketMQ NameServer (default: $SECKILL_MQ_NAMESRV or ${DEFAULT-VALUE})")
    String namesrv = System.getenv().getOrDefault("SECKILL_MQ_NAMESRV", "127.0.0.1:9876");

    @Option(names = "--group", description = "consumer group (default ${DEFAULT-VALUE})")
    String group = "seckill-order-consumer";

    @Option(names = "--max", description = "at most this many letters (default ${DEFAULT-VALUE})")
    int max = 1000;

    @Option(
            names = "--jdbc-url",
            description = "PostgreSQL of the engine (default: $SECKILL_JDBC_URL); when given, replay "
                    + "skips letters of objects under a manual hold (seckill freeze)")
    String jdbcUrl = System.getenv("SECKILL_JDBC_URL");

    @Option(names = "--db-user", description = "database user (default: $SECKILL_DB_USER)")
    String dbUser = System.getenv("SECKILL_DB_USER");

    @Option(names = "--db-password", description = "database password (default: $SECKILL_DB_PASSWORD)")
    String dbPassword = System.getenv("SECKILL_DB_PASSWORD");

    /** Letters whose key (the reservation id) or message id is held stay in the DLQ. */
    private java.util.function.Predicate<DeadLetters.Letter> held() {
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            return l -> false;
        }
        HoldRepository holds = HoldRepository.connect(jdbcUrl, dbUser, dbPassword);
        return l -> {
            boolean skip = !holds.holds(List.of(String.valueOf(l.keys()), String.valueOf(l.messageId())))
                    .isEmpty();
            if (skip) {
                System.out.printf("skipped %s (key %s is under a manual hold)%n", l.brokerMsgId(), l.keys());
            }
            return skip;
        };
    }

    @Override
    public Integer call() throws Exception {
        try (DeadLetters dlq = new DeadLetters(namesrv)) {
            switch (action) {
                case "list" -> {
                    List<DeadLetters.Letter> letters = dlq.list(group, max);
                    System.out.printf("%d dead letters in %s%n", letters.size(), DeadLetters.topic(group));
                    for (DeadLetters.Letter l : letters) {
                        System.out.printf(
                                "%s  topic=%s key=%s message_id=%s reconsumed=%d stored=%s body=%s%n",
                                l.brokerMsgId(),
                                l.originalTopic(),
                                l.keys(),
                                l.messageId(),
                                l.reconsumeTimes(),
                                Instant.ofEpochMilli(l.storeTimestamp()),
                                abbreviate(new String(l.body(), StandardCharsets.UTF_8)));
                    }
                    return 0;
                }
                case "replay" -> {
                    int n = dlq.replay(group, max, held());
                    System.out.printf("re-sent %d dead letters of %s with their original ids%n", n, group);
                    return 0;
                }
                default -> {
                    System.err.println("action: must be list or replay, got '" + action + "'");
                    return 2;
                }
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
