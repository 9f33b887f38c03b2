-- The channel's statement (docs/RECONCILIATION.md, "The channel's statement") is read window by window. Per
-- provider, the end of the last window whose every paid entry is known here: the next pass reads on
-- from it, and a window is only moved past when nothing in it is left to retry.
CREATE TABLE payment_statement_checkpoint (
    provider    varchar(32) PRIMARY KEY,
    checked_to  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
