-- Outputs of claims for PostgreSQL 13+, used when idempotent.outputs.enabled=true (the default).
-- What a listener sent while it ran under a claim (records through KafkaTemplate, @SendTo replies), stored in the
-- claim's transaction and sent again, in sequence_no order, when a redelivery of the key is an idempotent hit.
-- Keys and scopes compare byte for byte, exactly as in idempotent_claim (COLLATE "C"). Rows are removed with their
-- claim by the retention job. record_key, record_value and headers are the serialized bytes as sent; headers is the
-- library's encoding of the record headers. Times are UTC, written by the library.
CREATE TABLE IF NOT EXISTS idempotent_claim_output (
    scope            VARCHAR(128)  COLLATE "C" NOT NULL,
    idempotency_key  VARCHAR(128)  COLLATE "C" NOT NULL,
    sequence_no      INTEGER       NOT NULL,
    topic            VARCHAR(249)  NOT NULL,
    target_partition INTEGER       NULL,
    record_key       BYTEA         NULL,
    record_value     BYTEA         NULL,
    headers          BYTEA         NULL,
    created_at       TIMESTAMP(6)  NOT NULL,
    PRIMARY KEY (scope, idempotency_key, sequence_no)
);
