-- Time-partitioned archive of the idempotency table for MariaDB 10.6+ (InnoDB), an alternative to
-- schema-mariadb-archive.sql for idempotent.retention.mode=archive at high volume: the archive only grows, and
-- an operator removes old archived rows by dropping a whole partition (instant, no undo, no purge lag) instead of a
-- DELETE that reads and logs every row. See docs/operations.md, "Partitioned archive table".
-- Same columns as idempotent_claim. Partitioned by updated_at, the time retention compares, so a partition fills
-- once, in order, and is never written again after its month fell out of the retention window. InnoDB requires the
-- partitioning column in every unique key, hence PRIMARY KEY (id, updated_at): an archived row never changes, so a
-- row still cannot be archived twice. Not used by idempotent.jdbc.initialize-schema: copy it into your migrations,
-- with your months, and add the next month's partition before it begins (REORGANIZE the catch-all partition).
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
    PRIMARY KEY (id, updated_at),
    KEY ix_idempotent_claim_archive_scope_key (scope, idempotency_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4
PARTITION BY RANGE COLUMNS (updated_at) (
    PARTITION p_before_2026_01 VALUES LESS THAN ('2026-01-01'),
    PARTITION p2026_01 VALUES LESS THAN ('2026-02-01'),
    PARTITION p2026_02 VALUES LESS THAN ('2026-03-01'),
    PARTITION p2026_03 VALUES LESS THAN ('2026-04-01'),
    PARTITION p_later VALUES LESS THAN (MAXVALUE)
);
