-- Archive of the idempotency table for MariaDB 10.6+ (InnoDB), used when idempotent.retention.mode=archive.
-- Same columns as idempotent_claim; the primary key is the original row's id, so a row can never be archived
-- twice. No unique (scope, idempotency_key): a key archived, claimed again by a late replay and archived again
-- has two rows here, one per claim. Rows are only ever added by the retention job; purge them as you see fit.
CREATE TABLE IF NOT EXISTS idempotent_claim_archive (
    id               BIGINT        NOT NULL,
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
    KEY ix_idempotent_claim_archive_scope_key (scope, idempotency_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
