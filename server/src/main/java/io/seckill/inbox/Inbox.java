package io.seckill.inbox;

import io.seckill.state.InboxResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The inbox feature's face: one row per (consumer group, message id) claimed before a message's effects and
 * finished with its outcome in the same transaction (DESIGN.md §9.2), and the quarantine of messages that must not be
 * processed. Its tables are reached only here.
 */
@Service
public class Inbox {

    /** A message to claim: its id, what it is about, and its payload's hash (a redelivery must carry the same). */
    public record Claim(UUID messageId, UUID reservationId, UUID requestId, byte[] payloadHash) {}

    /** A message the group already has: its payload's hash and, once finished, its outcome. */
    public record Entry(UUID messageId, byte[] payloadHash, InboxResult result, UUID orderId) {}

    private final InboxRepository inbox;
    private final QuarantineRepository quarantine;

    Inbox(InboxRepository inbox, QuarantineRepository quarantine) {
        this.inbox = inbox;
        this.quarantine = quarantine;
    }

    /** Whether PostgreSQL answers a trivial query now (false when it cannot be reached). */
    public boolean answers() {
        return inbox.answers();
    }

    /** Inserts PROCESSING rows; the message ids this transaction now owns. */
    public List<UUID> claim(String group, String topic, String eventType, List<Claim> claims) {
        return inbox.claim(group, topic, eventType, claims);
    }

    /** The rows the group has for these message ids. */
    public Map<UUID, Entry> find(String group, List<UUID> messageIds) {
        return inbox.find(group, messageIds);
    }

    /** Finishes owned rows with their outcomes (and orders); how many were finished. */
    public int finish(String group, Map<UUID, InboxResult> codes, Map<UUID, UUID> orders) {
        return inbox.finish(group, codes, orders);
    }

    /** A reservation's inbox rows (the runbook's inspection). */
    public List<Map<String, Object>> ofReservation(UUID reservationId) {
        return inbox.ofReservation(reservationId);
    }

    /** Keeps a message that must not be processed for a person, with an anomaly naming the reason. */
    public void quarantine(
            String group,
            String topic,
            String messageId,
            String brokerMsgId,
            String reason,
            byte[] payload,
            byte[] payloadHash,
            byte[] existingHash) {
        quarantine.quarantine(group, topic, messageId, brokerMsgId, reason, payload, payloadHash, existingHash);
    }
}
