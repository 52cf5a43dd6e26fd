-- Outputs of claims for H2 2.x (also in MODE=MySQL), used when idempotent.outputs.enabled=true (the default).
-- What a listener sent while it ran under a claim (records through KafkaTemplate, @SendTo replies), stored in the
-- claim's transaction and sent again, in sequence_no order, when a redelivery of the key is an idempotent hit.
-- Rows are removed with their claim by the retention job. record_key, record_value and headers are the serialized
-- bytes as sent; headers is the library's encoding of the record headers. Times are UTC, written by the library.
CREATE TABLE IF NOT EXISTS idempotent_claim_output (
    scope            VARCHAR(256)  NOT NULL,
    idempotency_key  VARCHAR(256)  NOT NULL,
    sequence_no      INT           NOT NULL,
    topic            VARCHAR(249)  NOT NULL,
    target_partition INT           NULL,
    record_key       BLOB          NULL,
    record_value     BLOB          NULL,
    headers          BLOB          NULL,
    created_at       TIMESTAMP(6)  NOT NULL,
    PRIMARY KEY (scope, idempotency_key, sequence_no)
);
