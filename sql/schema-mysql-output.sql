-- Outputs of claims for MySQL 8.0+ (InnoDB), used when idempotent.outputs.enabled=true (the default).
-- What a listener sent while it ran under a claim (records through KafkaTemplate, @SendTo replies), stored in the
-- claim's transaction and sent again, in sequence_no order, when a redelivery of the key is an idempotent hit.
-- Keys and scopes compare byte for byte, exactly as in idempotent_claim (utf8mb4_0900_bin). Rows are removed with
-- their claim by the retention job. record_key, record_value and headers are the serialized bytes as sent; headers
-- is the library's encoding of the record headers. Times are UTC, written by the library.
CREATE TABLE IF NOT EXISTS idempotent_claim_output (
    scope            VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
    idempotency_key  VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
    sequence_no      INT           NOT NULL,
    topic            VARCHAR(249)  NOT NULL,
    target_partition INT           NULL,
    record_key       MEDIUMBLOB    NULL,
    record_value     LONGBLOB      NULL,
    headers          MEDIUMBLOB    NULL,
    created_at       DATETIME(6)   NOT NULL,
    PRIMARY KEY (scope, idempotency_key, sequence_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
