-- Idempotency table for MariaDB 10.6+ (InnoDB).
-- Keys and scopes compare byte for byte: utf8mb4_nopad_bin is a binary, NO PAD collation, so
-- 'Order-A' <> 'order-a', 'a' <> 'a ' and 'cafe' <> 'café'. Do not change it to a _ci or PAD SPACE collation:
-- the unique index would then merge distinct keys and real records would be skipped as duplicates.
-- Times are UTC, written by the library.
-- ix_idempotent_claim_status_updated serves retention, the table check and the FAILED page of the endpoint, so
-- that none of them reads the whole table (see docs/scale.md). To add it to an existing table:
-- CREATE INDEX ix_idempotent_claim_status_updated ON idempotent_claim (status, updated_at);
-- payload_fingerprint (hex SHA-256 of the payload) is written only with idempotent.fingerprint.enabled=true;
-- tables created without it keep working while that is off. To add it: ALTER TABLE idempotent_claim ADD COLUMN
-- payload_fingerprint VARCHAR(64) NULL; Status: 0 = PROCESSING, 1 = SUCCEEDED, 2 = FAILED.
CREATE TABLE IF NOT EXISTS idempotent_claim (
    id               BIGINT        NOT NULL AUTO_INCREMENT,
    scope            VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    idempotency_key  VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    status           TINYINT       NOT NULL,
    attempts         INT           NOT NULL,
    source_topic     VARCHAR(249)  NULL,
    source_partition INT           NULL,
    source_offset    BIGINT        NULL,
    created_at       DATETIME(6)   NOT NULL,
    updated_at       DATETIME(6)   NOT NULL,
    lease_until      DATETIME(6)   NULL,
    last_error       VARCHAR(1000) NULL,
    payload_fingerprint VARCHAR(64) NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_idempotent_claim_scope_key (scope, idempotency_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- a statement of its own, so that initialize-schema=always also adds it to a table created before it existed
CREATE INDEX IF NOT EXISTS ix_idempotent_claim_status_updated ON idempotent_claim (status, updated_at);
-- Outputs of claims for MariaDB 10.6+ (InnoDB), used when idempotent.outputs.enabled=true (the default).
-- What a listener sent while it ran under a claim (records through KafkaTemplate, @SendTo replies), stored in the
-- claim's transaction and sent again, in sequence_no order, when a redelivery of the key is an idempotent hit.
-- Keys and scopes compare byte for byte, exactly as in idempotent_claim (utf8mb4_nopad_bin). Rows are removed with
-- their claim by the retention job. record_key, record_value and headers are the serialized bytes as sent; headers
-- is the library's encoding of the record headers. Times are UTC, written by the library.
CREATE TABLE IF NOT EXISTS idempotent_claim_output (
    scope            VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    idempotency_key  VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    sequence_no      INT           NOT NULL,
    topic            VARCHAR(249)  NOT NULL,
    target_partition INT           NULL,
    record_key       MEDIUMBLOB    NULL,
    record_value     LONGBLOB      NULL,
    headers          MEDIUMBLOB    NULL,
    created_at       DATETIME(6)   NOT NULL,
    PRIMARY KEY (scope, idempotency_key, sequence_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
