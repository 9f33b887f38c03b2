package io.seckill.dlq;

import io.seckill.api.Caller.Operator;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.ManualHolds;
import io.seckill.mq.MqClients;
import io.seckill.refusal.Refusal;
import io.seckill.state.ObjectKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A consumer group's dead letters on the operator's plane: listed with {@code seckill:view}, replayed with
 * {@code seckill:operate} - with a reason, and an audit row naming the operator, the letters found and what was
 * re-sent or left for a person (letters of objects under a manual hold stay in the DLQ).
 */
@RestController
class DlqController implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(DlqController.class);
    static final int MAX_LETTERS = 10_000;
    /** How many letter ids an audit row names; the count is always whole. */
    private static final int AUDITED_IDS = 100;

    private final SeckillProperties props;
    private final ManualHolds holds;
    /** The broker clients that read and re-send letters, started on the first call and kept. */
    private DeadLetters letters;

    DlqController(SeckillProperties props, ManualHolds holds) {
        this.props = props;
        this.holds = holds;
    }

    record ReplayRequest(String group, Integer max, String reason) {}

    /** A dead letter as the operator sees it: where it came from, its keys, and the start of its body. */
    record LetterView(
            String brokerMsgId,
            String topic,
            String key,
            String messageId,
            int reconsumed,
            String storedAt,
            String body) {

        static LetterView of(DeadLetters.Letter l) {
            String body = new String(l.body(), StandardCharsets.UTF_8);
            return new LetterView(
                    l.brokerMsgId(),
                    l.originalTopic(),
                    l.keys(),
                    l.messageId(),
                    l.reconsumeTimes(),
                    Instant.ofEpochMilli(l.storeTimestamp()).toString(),
                    body.length() > 160 ? body.substring(0, 160) + "..." : body);
        }
    }

    /** A consumer group's dead letters, up to the asked maximum. */
    record Letters(String group, String topic, int count, List<LetterView> letters) {}

    /** What a replay did: the letters read, how many were sent again, and those left because a person holds them. */
    record Replayed(String group, int letters, int reSent, List<String> leftHeld) {}

    @GetMapping("/api/v1/admin/dlq")
    Letters list(
            @RequestParam(name = "group", required = false) String group,
            @RequestParam(name = "max", required = false) Integer max) {
        String g = group(group);
        List<DeadLetters.Letter> letters = read(g, max(max));
        return new Letters(
                g,
                DeadLetters.topic(g),
                letters.size(),
                letters.stream().map(LetterView::of).toList());
    }

    @PostMapping("/api/v1/admin/dlq/replay")
    Replayed replay(Operator operator, @RequestBody(required = false) ReplayRequest body) {
        if (body == null || body.reason() == null || body.reason().isBlank()) {
            throw Refusal.invalid("reason", "is required for every manual action");
        }
        String g = group(body.group());
        int max = max(body.max());
        List<String> skipped = new ArrayList<>();
        int sent;
        List<DeadLetters.Letter> letters;
        try {
            DeadLetters dlq = deadLetters();
            letters = dlq.list(g, max);
            sent = dlq.replay(letters, l -> {
                boolean held = !holds.holds(List.of(String.valueOf(l.keys()), String.valueOf(l.messageId())))
                        .isEmpty();
                if (held) {
                    skipped.add(l.brokerMsgId());
                }
                return held;
            });
        } catch (Refusal r) {
            throw r;
        } catch (Exception e) {
            throw Refusal.unavailable(
                    "BROKER_UNAVAILABLE", "cannot replay " + DeadLetters.topic(g) + ": " + e.getMessage());
        }
        Map<String, Object> found = new LinkedHashMap<>();
        found.put("letters", letters.size());
        found.put(
                "broker_msg_ids",
                letters.stream()
                        .limit(AUDITED_IDS)
                        .map(DeadLetters.Letter::brokerMsgId)
                        .toList());
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("re_sent", sent);
        after.put("left_held", skipped);
        holds.audit(
                operator.name(),
                "DLQ_REPLAY",
                ObjectKind.DLQ,
                DeadLetters.topic(g),
                found,
                after,
                Map.of("group", g, "max", max),
                body.reason());
        log.warn(
                "dlq.replayed group={} letters={} re_sent={} left_held={} operator={}",
                g,
                letters.size(),
                sent,
                skipped.size(),
                operator.name());
        return new Replayed(g, letters.size(), sent, skipped);
    }

    private List<DeadLetters.Letter> read(String group, int max) {
        try {
            return deadLetters().list(group, max);
        } catch (Exception e) {
            throw Refusal.unavailable(
                    "BROKER_UNAVAILABLE", "cannot read " + DeadLetters.topic(group) + ": " + e.getMessage());
        }
    }

    private synchronized DeadLetters deadLetters() throws Exception {
        if (letters == null) {
            letters = new DeadLetters(props.mq().namesrv(), MqClients.credentials(props.mq()));
        }
        return letters;
    }

    @Override
    public synchronized void destroy() {
        if (letters != null) {
            letters.close();
            letters = null;
        }
    }

    /** One of this engine's consumer groups (default: the order consumer's). */
    private String group(String group) {
        List<String> groups =
                List.of(props.mq().orderConsumerGroup(), props.mq().projectionGroup());
        if (group == null || group.isBlank()) {
            return groups.getFirst();
        }
        if (!groups.contains(group)) {
            throw Refusal.invalid("group", "must be one of " + groups);
        }
        return group;
    }

    private static int max(Integer max) {
        if (max == null) {
            return 1000;
        }
        if (max < 1 || max > MAX_LETTERS) {
            throw Refusal.invalid("max", "must be between 1 and " + MAX_LETTERS);
        }
        return max;
    }
}
