package io.seckill.dlq;

import io.seckill.api.Caller.Operator;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.ManualHolds;
import io.seckill.mq.MqClients;
import io.seckill.refusal.Refusal;
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

    @GetMapping("/api/v1/admin/dlq")
    Map<String, Object> list(
            @RequestParam(name = "group", required = false) String group,
            @RequestParam(name = "max", required = false) Integer max) {
        String g = group(group);
        List<DeadLetters.Letter> letters = read(g, max(max));
        List<Map<String, Object>> out = new ArrayList<>();
        for (DeadLetters.Letter l : letters) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("broker_msg_id", l.brokerMsgId());
            m.put("topic", l.originalTopic());
            m.put("key", l.keys());
            m.put("message_id", l.messageId());
            m.put("reconsumed", l.reconsumeTimes());
            m.put("stored_at", Instant.ofEpochMilli(l.storeTimestamp()).toString());
            String body = new String(l.body(), StandardCharsets.UTF_8);
            m.put("body", body.length() > 160 ? body.substring(0, 160) + "..." : body);
            out.add(m);
        }
        return Map.of("group", g, "topic", DeadLetters.topic(g), "count", letters.size(), "letters", out);
    }

    @PostMapping("/api/v1/admin/dlq/replay")
    Map<String, Object> replay(Operator operator, @RequestBody(required = false) ReplayRequest body) {
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
                "DLQ",
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
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("group", g);
        out.put("letters", letters.size());
        out.put("re_sent", sent);
        out.put("left_held", skipped);
        return out;
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
