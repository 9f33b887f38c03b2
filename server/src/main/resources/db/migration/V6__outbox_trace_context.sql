-- The trace context (W3C traceparent) of the work that wrote an event: the relay continues the
-- purchase's trace on the event message. Nullable, no default: adding it rewrites no row.
ALTER TABLE event_outbox ADD COLUMN trace_parent text;
